import { afterEach, describe, expect, it } from 'vitest';
import { anEvent } from '../../../../test/support/events.js';
import { sqliteStores } from '../../../../test/support/sqlite-stores.js';
import { ProjectionRunner } from '#warden/eventstore';
import type { JsonObject } from '#warden/kernel';
import { REPORT_COUNTS, type ReportCountDoc, reportCountDocId, reportCountOf, reportCountsProjection } from './report-counts.projection.js';

const p1 = { id: 'p1', typeId: 'post' };
const reported = (reportId: string, item = p1) => anEvent('ReportSubmitted', { reportId, reportedItem: { ...item, version: 1 } } as unknown as JsonObject);

describe('report counts projection', () => {
  let stores: ReturnType<typeof sqliteStores>;
  afterEach(async () => {
    await stores?.close();
  });

  const doc = (item = p1) => stores.readStore.get<ReportCountDoc>(REPORT_COUNTS, reportCountDocId('acme', item));
  const catchUp = () => new ProjectionRunner(reportCountsProjection, stores.events, stores.readStore).catchUp();

  it("counts an item's reports in a document that does not grow with them, once each when delivered again", async () => {
    stores = sqliteStores();
    for (let i = 0; i < 300; i++) await stores.events.append(`report-acme:r${i}`, [reported(`r${i}`)], 'no_stream');
    await stores.events.append('report-acme:other', [reported('other', { id: 'p2', typeId: 'post' })], 'no_stream');
    await catchUp();
    expect(reportCountOf(await doc())).toBe(300);
    expect(JSON.stringify(await doc()).length).toBeLessThan(200);
    expect(reportCountOf(await doc({ id: 'p2', typeId: 'post' }))).toBe(1);
    // Every event delivered again (the checkpoint set back, as a crash before its move leaves it).
    await stores.readStore.commit([], { projection: reportCountsProjection.name, from: await stores.readStore.checkpoint(reportCountsProjection.name), to: 0 });
    await catchUp();
    expect(reportCountOf(await doc())).toBe(300);
  });

  it('counts on from a document of the earlier form (the reports listed), without counting a listed report again', async () => {
    stores = sqliteStores();
    await stores.readStore.commit([
      {
        op: 'put',
        collection: REPORT_COUNTS,
        id: reportCountDocId('acme', p1),
        doc: { orgId: 'acme', itemTypeId: 'post', itemId: 'p1', reportIds: ['r0', 'r1'] },
        position: 0,
      },
    ]);
    await stores.events.append('report-acme:r1', [reported('r1')], 'no_stream');
    await stores.events.append('report-acme:r2', [reported('r2')], 'no_stream');
    await catchUp();
    expect(await doc()).toEqual({ orgId: 'acme', itemTypeId: 'post', itemId: 'p1', count: 3 });
  });
});
