// Lists that an adversary can make long (a rule firing all day, an item reported 100,000 times, a
// period of millions of statements) read their page in an index's own order and stop at it: the
// plans SQLite chooses for the statements the read store actually prepares for those queries,
// with the indexes their projections declare (docs/operations.md, "Read-model indexes").
import { openSqlite, type Projection } from '#warden/eventstore';
import { SqliteReadStore } from '#warden/readstore';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { recordSelects } from './support/sqlite-selects.js';
import { AUDIT_CHAIN_LINKS, auditChainProjection } from '../libs/audit/src/chain/audit-chain.projection.js';
import { firstLinkFrom, lastLinkThrough } from '../libs/audit/src/chain/chain-links.js';
import { itemHistoryProjection } from '../libs/audit/src/history/item-history.projection.js';
import { InvestigationReader } from '../libs/audit/src/investigate/investigation-reader.js';
import { GetItemHistoryHandler } from '../libs/audit/src/queries/get-item-history/get-item-history.handler.js';
import { GetItemHistoryQuery } from '../libs/audit/src/queries/get-item-history/get-item-history.query.js';
import { callbackDeliveriesProjection } from '../libs/callbacks/src/projections/callback-deliveries.projection.js';
import { ListDeliveriesQuery } from '../libs/callbacks/src/queries/list-deliveries/list-deliveries.query.js';
import { forEachScheduledDelivery } from '../libs/callbacks/src/delivery/scheduled-deliveries.js';
import { CALLBACK_SCHEDULE } from '../libs/callbacks/src/projections/callback-deliveries.read-model.js';
import { ListDeliveriesHandler } from '../libs/callbacks/src/queries/list-deliveries/list-deliveries.handler.js';
import { ListItemDeliveriesHandler } from '../libs/callbacks/src/queries/list-item-deliveries/list-item-deliveries.handler.js';
import { ListItemDeliveriesQuery } from '../libs/callbacks/src/queries/list-item-deliveries/list-item-deliveries.query.js';
import { itemEvaluationsProjection } from '../libs/rules/src/projections/item-evaluations.projection.js';
import { ListEvaluationsHandler } from '../libs/rules/src/queries/list-evaluations/list-evaluations.handler.js';
import { ListEvaluationsQuery } from '../libs/rules/src/queries/list-evaluations/list-evaluations.query.js';
import { transparencyProjection } from '../libs/transparency/src/projections/transparency.projection.js';
import { readAfter } from '../libs/transparency/src/queries/list-statements/list-statements.handler.js';
import { nextActionWithUnsent, nextOrganizationWithUnsent, unsentOfAction } from '../libs/transparency/src/submission/statement-submitter.js';
import { TRANSPARENCY_STATEMENTS } from '../libs/transparency/src/projections/transparency.read-model.js';
import { childSafetyReportsProjection } from '../libs/review/src/projections/child-safety-reports.projection.js';
import { ListChildSafetyReportsHandler } from '../libs/review/src/queries/list-child-safety-reports/list-child-safety-reports.handler.js';
import { ListChildSafetyReportsQuery } from '../libs/review/src/queries/list-child-safety-reports/list-child-safety-reports.query.js';
import { catalogProjection } from '../libs/catalog/src/projections/catalog.projection.js';
import { CATALOG_ENTITIES } from '../libs/catalog/src/projections/catalog.read-model.js';

/** A read store whose prepared SELECTs are kept, with their plans, and the indexes of `projection` made. */
async function storeWith(projection: Projection) {
  const db = openSqlite(join(mkdtempSync(join(tmpdir(), 'warden-plans-')), 'read-models.db'));
  const recorded = recordSelects(db);
  const store = new SqliteReadStore(db);
  for (const index of projection.indexes ?? []) await store.ensureIndex(index.collection, index.fields);
  /** The plan of the last find, with the values it was run with. */
  const plan = () => recorded.plan(recorded.selects.at(-1)!);
  return { store, plan, close: () => db.close() };
}

describe('long lists read their page in index order', () => {
  it('the callback deliveries, newest first, of every status and of one', async () => {
    const { store, plan, close } = await storeWith(callbackDeliveriesProjection);
    const handler = new ListDeliveriesHandler(store);
    await handler.execute(new ListDeliveriesQuery('acme', undefined, 50, 0));
    expect(plan()).toContain('USING INDEX rm/callback_deliveries/orgId,requestedAt');
    expect(plan()).not.toContain('USE TEMP B-TREE');
    await handler.execute(new ListDeliveriesQuery('acme', 'failed', 50, 0));
    expect(plan()).toContain('USING INDEX rm/callback_deliveries/orgId,status,requestedAt');
    expect(plan()).not.toContain('USE TEMP B-TREE');
    close();
  });

  it("an item's deliveries, newest first (a review job's view and its appeal's): its own, never the organization's in time order", async () => {
    const { store, plan, close } = await storeWith(callbackDeliveriesProjection);
    const handler = new ListItemDeliveriesHandler(store, { catchUp: async () => undefined } as never);
    await handler.execute(new ListItemDeliveriesQuery('acme', { typeId: 'post', id: 'p1' }, 50));
    expect(plan()).toContain('USING INDEX rm/callback_deliveries/orgId,item.typeId,item.id,requestedAt');
    expect(plan()).not.toContain('USE TEMP B-TREE');
    close();
  });

  it("an item's statements of reasons, newest first: its own, never the organization's in time order", async () => {
    const { store, plan, close } = await storeWith(transparencyProjection);
    await store.find(
      TRANSPARENCY_STATEMENTS,
      { orgId: 'acme', 'item.typeId': 'post', 'item.id': 'p1' },
      {
        sort: [
          { field: 'decidedAt', direction: 'desc' },
          { field: 'puid', direction: 'asc' },
        ],
        limit: 100,
      },
    );
    // The item's own statements, found by the item; sorted among themselves (the newest first, ties by puid).
    expect(plan()).toContain('USING INDEX rm/transparency_statements/orgId,item.typeId,item.id,decidedAt,puid (<expr>=? AND <expr>=? AND <expr>=?)');
    close();
  });

  it("an item's evaluations, newest version first, and one version's", async () => {
    const { store, plan, close } = await storeWith(itemEvaluationsProjection);
    const handler = new ListEvaluationsHandler(store, { readStream: async () => [] } as never);
    await handler.execute(new ListEvaluationsQuery('acme', 'post', 'p1'));
    expect(plan()).toContain('USING INDEX rm/rules_item_evaluations/orgId,typeId,itemId,version,evaluatedAt');
    expect(plan()).not.toContain('USE TEMP B-TREE');
    // One version's (a handful: one per run) found through the same index, all four fields.
    await handler.execute(new ListEvaluationsQuery('acme', 'post', 'p1', 7));
    expect(plan()).toContain('USING INDEX rm/rules_item_evaluations/orgId,typeId,itemId,version,evaluatedAt (<expr>=? AND <expr>=? AND <expr>=? AND <expr>=?)');
    close();
  });

  it("a period's statements of reasons, in decidedAt order, and after a cursor (the statements list's queries)", async () => {
    const { store, plan, close } = await storeWith(transparencyProjection);
    // Each find's plan, as readAfter makes them.
    const plans: string[] = [];
    const recording = new Proxy(store, {
      get: (target, key) =>
        key === 'find'
          ? async (...args: Parameters<typeof store.find>) => {
              const found = await target.find(...args);
              plans.push(plan());
              return found;
            }
          : Reflect.get(target, key),
    });
    const range = { gte: '2026-11-01', lt: '2026-12-01' };
    await readAfter(recording, 'acme', range, undefined, 50);
    // After a cursor: the rest of its instant (two fields equal, a range on the third), then what follows.
    await readAfter(recording, 'acme', range, { decidedAt: '2026-11-05T10:00:00.000Z', puid: 'p-7' }, 50);
    expect(plans).toHaveLength(3);
    for (const detail of plans) {
      expect(detail).toContain('USING INDEX rm/transparency_statements/orgId,decidedAt,puid');
      expect(detail).not.toContain('USE TEMP B-TREE');
    }
    close();
  });

  it('the unsent statements the submitter forms into batches: the next action with some, and its oldest first', async () => {
    const { store, plan, close } = await storeWith(transparencyProjection);
    await store.commit([{ op: 'put', collection: TRANSPARENCY_STATEMENTS, id: 'x', doc: { orgId: 'acme', batchId: null, actionId: 'remove' } }]);
    const index = 'USING INDEX rm/transparency_statements/orgId,batchId,actionId,decidedAt,puid';
    expect(await nextActionWithUnsent(store, 'acme', undefined)).toBe('remove');
    expect(plan()).toContain(index);
    expect(plan()).not.toContain('USE TEMP B-TREE');
    expect(await nextActionWithUnsent(store, 'acme', 'remove')).toBeUndefined();
    expect(plan()).toContain(`${index} (<expr>=? AND <expr>=? AND <expr>>?)`);
    expect(plan()).not.toContain('USE TEMP B-TREE');
    // At a start, the organizations with unsent statements: one entry each of (batchId, orgId).
    expect(await nextOrganizationWithUnsent(store, undefined)).toBe('acme');
    expect(plan()).toContain('USING INDEX rm/transparency_statements/batchId,orgId (<expr>=?)');
    expect(plan()).not.toContain('USE TEMP B-TREE');
    expect(await nextOrganizationWithUnsent(store, 'acme')).toBeUndefined();
    expect(plan()).toContain('USING INDEX rm/transparency_statements/batchId,orgId (<expr>=? AND <expr>>?)');
    expect(plan()).not.toContain('USE TEMP B-TREE');
    await unsentOfAction(store, 'acme', 'remove', undefined, 100);
    expect(plan()).toContain(index);
    expect(plan()).not.toContain('USE TEMP B-TREE');
    await unsentOfAction(store, 'acme', 'remove', '2026-11-05T10:00:00.000Z', 100);
    expect(plan()).toContain(`${index} (<expr>=? AND <expr>=? AND <expr>=? AND <expr>>?)`);
    expect(plan()).not.toContain('USE TEMP B-TREE');
    close();
  });

  it("a subject's newest entries without the child-safety mark, of every type and of one (Investigate without VIEW_CHILD_SAFETY_DATA)", async () => {
    const { store, plan, close } = await storeWith(itemHistoryProjection);
    // The reader's own query; of its dependencies only the read store takes part.
    const newest = InvestigationReader.prototype.newest.bind({ readStore: store } as unknown as InvestigationReader);
    const item = { typeId: 'post', id: 'p1' };
    await newest('acme', item, null, 51, undefined, true);
    expect(plan()).toContain('USING INDEX rm/audit_item_history/orgId,typeId,itemId,childSafety,position');
    expect(plan()).not.toContain('USE TEMP B-TREE');
    await newest('acme', item, 'ReportSubmitted', 50, 1_000, true);
    expect(plan()).toContain('USING INDEX rm/audit_item_history/orgId,typeId,itemId,type,childSafety,position');
    expect(plan()).not.toContain('USE TEMP B-TREE');
    close();
  });

  it("an audit export's seeks by time: the first link from a time, the last through one", async () => {
    const { store, plan, close } = await storeWith(auditChainProjection);
    // A link written, so that the collection's table exists.
    await store.commit([{ op: 'put', collection: AUDIT_CHAIN_LINKS, id: 'x', doc: { orgId: 'acme', seq: 1, occurredAt: '2026-11-01T00:00:00.000Z' } }]);
    await firstLinkFrom(store, 'acme', new Date('2026-11-01T00:00:00Z'));
    expect(plan()).toContain(`USING INDEX rm/${AUDIT_CHAIN_LINKS}/orgId,occurredAt,seq`);
    expect(plan()).not.toContain('USE TEMP B-TREE');
    await lastLinkThrough(store, 'acme', new Date('2026-11-30T00:00:00Z'));
    expect(plan()).toContain(`USING INDEX rm/${AUDIT_CHAIN_LINKS}/orgId,occurredAt,seq`);
    expect(plan()).not.toContain('USE TEMP B-TREE');
    close();
  });

  it('the scheduled deliveries a worker reloads when delivering starts, soonest first, a page at a time', async () => {
    const { store, plan, close } = await storeWith(callbackDeliveriesProjection);
    const due = (i: number) => ({ orgId: 'acme', deliveryId: `d${i}`, nextAttemptAt: `2026-11-01T00:00:0${i}.000Z`, revision: 1 });
    await store.commit([0, 1].map((i) => ({ op: 'put' as const, collection: CALLBACK_SCHEDULE, id: `acme:d${i}`, doc: due(i) })));
    // The first page's read; the next pages read ranges of the same index (its instant's rest, then what follows).
    await forEachScheduledDelivery(store, () => {});
    expect(plan()).toContain('USING INDEX rm/callback_schedule/nextAttemptAt,deliveryId');
    expect(plan()).not.toContain('USE TEMP B-TREE');
    close();
  });

  it("the organization's child-safety reports, newest first, a page at a time", async () => {
    const { store, plan, close } = await storeWith(childSafetyReportsProjection);
    await new ListChildSafetyReportsHandler(store, { catchUp: async () => {} } as never).execute(new ListChildSafetyReportsQuery('acme', 50, 0));
    expect(plan()).toContain('USING INDEX rm/child_safety_reports/orgId,recordedAt,reportId');
    expect(plan()).not.toContain('USE TEMP B-TREE');
    close();
  });

  it("an organization's catalog entities of a kind, live or ever, in id order", async () => {
    const { store, plan, close } = await storeWith(catalogProjection);
    // The two reads of CatalogReader (libs/catalog/src/queries/catalog-reader.ts), as it makes them.
    const filters: Array<Record<string, string | boolean>> = [
      { orgId: 'acme', kind: 'rules', archived: false },
      { orgId: 'acme', kind: 'rules' },
    ];
    for (const filter of filters) {
      await store.find(CATALOG_ENTITIES, filter, { sort: [{ field: 'id', direction: 'asc' }] });
      expect(plan()).toMatch(/USING INDEX rm\/catalog_entities\/orgId,kind,(archived,)?id/);
      expect(plan()).not.toContain('USE TEMP B-TREE');
    }
    close();
  });

  it("a history's page after a log position: a range of the item's index, in its order", async () => {
    const { store, plan, close } = await storeWith(itemHistoryProjection);
    // Of its dependencies only the read store takes part: a page after the last entry reads no event.
    const handler = new GetItemHistoryHandler(store, undefined as never, { catchUp: async () => {} } as never, undefined as never);
    await store.commit([{ op: 'put', collection: 'audit_item_history', id: 'x', doc: { orgId: 'acme', typeId: 'post', itemId: 'p1', position: 5 } }]);
    expect((await handler.execute(new GetItemHistoryQuery('acme', 'post', 'p1', 0, 100, true, 5))).entries).toEqual([]);
    expect(plan()).toContain('USING INDEX rm/audit_item_history/orgId,typeId,itemId,position (<expr>=? AND <expr>=? AND <expr>=? AND <expr>>?)');
    expect(plan()).not.toContain('USE TEMP B-TREE');
    close();
  });
});
