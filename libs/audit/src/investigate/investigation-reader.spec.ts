import { describe, expect, it } from 'vitest';
import type { RecordedEvent } from '#warden/kernel';
import { ITEM_HISTORY_STREAMS, type ItemHistoryStreamDoc } from '../history/item-history.projection.js';
import { InvestigationReader } from './investigation-reader.js';

/**
 * A reader over an index that holds only these stream records (by stream name), at `now`; `log`:
 * the streams the log holds (a routing's ReportRouted); `router`: the routing reactor's checkpoint
 * (0: not this store's to read, as on KurrentDB). Nothing else is read.
 */
function readerWith(
  streams: Record<string, ItemHistoryStreamDoc>,
  now = '2026-12-01T00:00:05.000Z',
  { log = {}, router = 0 }: { log?: Record<string, Array<Partial<RecordedEvent>>>; router?: number } = {},
): InvestigationReader {
  const readStore = {
    get: async (collection: string, id: string) => (collection === ITEM_HISTORY_STREAMS ? streams[id] : undefined),
    checkpoint: async (name: string) => (name === 'report-routing' ? router : 0),
  };
  const events = { readStream: async (stream: string) => log[stream] ?? [] };
  return new InvestigationReader(readStore as never, events as never, {} as never, {} as never, {} as never, { now: () => new Date(now) } as never);
}

const plainReport = {
  id: 'e1',
  type: 'ReportSubmitted',
  streamName: 'report-acme:r1',
  revision: 0,
  position: 7,
  data: { reportId: 'r1', reportedItem: { id: 'p1', typeId: 'post', version: 0 }, csam: false },
  metadata: { orgId: 'acme', occurredAt: '2026-12-01T00:00:00.000Z', correlationId: 'c', causationId: null },
} as unknown as RecordedEvent;
const routing = 'report_routing-acme:r1';
const ANALYST = ['INVESTIGATE'] as const;

describe('the events Investigate shows of a plain report, without VIEW_CHILD_SAFETY_DATA', () => {
  it('leaves it out until the index has its routing: a routing rule may be sending it to child-safety', async () => {
    expect(await readerWith({}).childSafetyFilter(ANALYST, 'acme')([plainReport])).toEqual([]);
  });

  it("shows one without a routing after an hour where the router's checkpoint is not known: a release before 2026-11-30 recorded none", async () => {
    expect(await readerWith({}, '2026-12-01T01:00:00.000Z').childSafetyFilter(ANALYST, 'acme')([plainReport])).toEqual([plainReport]);
  });

  it('shows it once routed elsewhere, and leaves it out once routed to child-safety', async () => {
    const elsewhere = readerWith({ [routing]: { refs: [{ typeId: 'post', id: 'p1' }] } });
    expect(await elsewhere.childSafetyFilter(ANALYST, 'acme')([plainReport])).toEqual([plainReport]);
    const there = readerWith({ [routing]: { refs: [{ typeId: 'post', id: 'p1' }], childSafety: true } });
    expect(await there.childSafetyFilter(ANALYST, 'acme')([plainReport])).toEqual([]);
  });

  it('goes by its ReportRouted in the log while the index has not recorded it', async () => {
    const routedTo = (queueId: string) => ({ log: { [routing]: [{ type: 'ReportRouted', data: { reportId: 'r1', queueId } }] } });
    expect(await readerWith({}, undefined, routedTo('child-safety')).childSafetyFilter(ANALYST, 'acme')([plainReport])).toEqual([]);
    expect(await readerWith({}, undefined, routedTo('default')).childSafetyFilter(ANALYST, 'acme')([plainReport])).toEqual([plainReport]);
  });

  it("goes by the router's checkpoint where it has one: hidden until it passed the report, however long that takes", async () => {
    const anHourLater = '2026-12-01T02:00:00.000Z';
    expect(await readerWith({}, anHourLater, { router: 6 }).childSafetyFilter(ANALYST, 'acme')([plainReport])).toEqual([]);
    // Passed without recording a routing: a report of a release before 2026-11-30, shown at once.
    expect(await readerWith({}, undefined, { router: 7 }).childSafetyFilter(ANALYST, 'acme')([plainReport])).toEqual([plainReport]);
  });

  it('shows it at once with the permission', async () => {
    expect(await readerWith({}).childSafetyFilter(['INVESTIGATE', 'VIEW_CHILD_SAFETY_DATA'], 'acme')([plainReport])).toEqual([plainReport]);
  });
});
