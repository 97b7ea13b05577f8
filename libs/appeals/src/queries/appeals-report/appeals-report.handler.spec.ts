import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { recordSelects } from '../../../../../test/support/sqlite-selects.js';
import { anEvent } from '../../../../../test/support/events.js';
import { rng } from '../../../../../test/support/random.js';
import { sqliteStores } from '../../../../../test/support/sqlite-stores.js';
import { openSqlite, ProjectionRunner } from '#warden/eventstore';
import type { JsonObject, NewEvent } from '#warden/kernel';
import { type ReadStore, SqliteReadStore } from '#warden/readstore';
import type { ProjectionHost } from '#warden/storage';
import { checkReportWindow, type ReportWindow, windowDays } from '../../domain/report-window.js';
import { appealOutcomesProjection } from '../../projections/appeal-outcomes.projection.js';
import {
  APPEAL_OUTCOME_BUCKETS,
  APPEAL_OUTCOME_DAYS,
  APPEAL_OUTCOMES,
  type AppealOutcomeDayDoc,
  type AppealOutcomeDoc,
  bucketRanges,
  type OutcomeCounts,
  type OutcomeEntry,
} from '../../projections/appeal-outcomes.read-model.js';
import { AppealsReportHandler } from './appeals-report.handler.js';
import { type AppealsReport, AppealsReportQuery } from './appeals-report.query.js';

const NOW = new Date('2026-03-10T12:34:56.789Z');
const DAY_MS = 86_400_000;
/** What one partial day may read: nine runs of buckets (bucketRanges), 23 hours and at each end 59 minutes, 59 seconds, 99 10-ms and 9 ms. */
const MAX_RUNS_PER_PARTIAL_DAY = 9;
const MAX_BUCKETS_PER_PARTIAL_DAY = 23 + 2 * (59 + 59 + 99 + 9);

const callback = (itemId: string, named: { rules?: string[]; policies?: string[]; decision?: boolean }) =>
  anEvent('ActionCallbackRequested', {
    deliveryId: `d-${itemId}`,
    item: { id: itemId, typeId: 'post', typeName: 'Post' },
    action: { id: 'remove' },
    policies: (named.policies ?? []).map((id) => ({ id, name: `Policy ${id}`, penalty: 'LOW' })),
    rules: (named.rules ?? []).map((id) => ({ id, name: `Rule ${id}` })),
    custom: {},
    creator: null,
    ...(named.decision ? { trigger: 'decision', actorEmail: 'mod@example.com' } : {}),
  } as JsonObject);

const appeal = (appealId: string, itemId: string, appealedAt: string) =>
  anEvent('AppealSubmitted', {
    appealId,
    appealedAt,
    actionedItem: { id: itemId, typeId: 'post' },
    actionsTaken: ['remove'],
    violatingPolicyIds: [],
    subject: 'user:u1',
  } as JsonObject);

const decided = (appealId: string, decision: 'ACCEPT' | 'REJECT') =>
  anEvent('AppealDecided', { appealId, decision, jobId: 'j', decisionId: `x-${appealId}`, decidedBy: { userId: 'm' }, decidedAt: NOW.toISOString() });

/** The items appealed: a rule's and a policy's, a moderator's decision, another rule's, and one Warden never actioned. */
const ITEMS = ['p1', 'p2', 'p3', 'p4'];
const CALLBACKS = [
  callback('p1', { rules: ['r1'], policies: ['spam'] }),
  callback('p2', { policies: ['spam'], decision: true }),
  callback('p3', { rules: ['r2', 'r1'], policies: ['hate'] }),
];

/**
 * Instants that fall on and beside what a window or a bucket cuts at: the default window's bounds,
 * a day's first and last millisecond, hours, minutes, seconds, 10 ms; and random ones.
 */
function appealTimes(random: () => number): number[] {
  const from = NOW.getTime() - 30 * DAY_MS;
  const edges = [from, NOW.getTime()];
  for (const t of [from, NOW.getTime()]) {
    const dayStart = Math.floor(t / DAY_MS) * DAY_MS;
    edges.push(dayStart, dayStart + DAY_MS, dayStart + 3_600_000 * 13, Math.floor(t / 3_600_000) * 3_600_000, Math.floor(t / 60_000) * 60_000);
    edges.push(Math.floor(t / 1000) * 1000, Math.floor(t / 10) * 10, t + 3_600_000, t - 3_600_000, t + 61_001, t - 61_001);
  }
  const times = edges.flatMap((e) => [e - 1, e, e + 1, e + 9, e + 10, e + 11, e - 10]);
  for (let i = 0; i < 1200; i++) times.push(from - 2 * DAY_MS + Math.floor(random() * 34 * DAY_MS));
  // Many in the two partial days' hours that the window cuts.
  for (let i = 0; i < 300; i++) times.push(from - 3_600_000 + Math.floor(random() * 7_200_000), NOW.getTime() - 3_600_000 + Math.floor(random() * 7_200_000));
  return times;
}

/** Appeals at those instants, on the items in turn, two in three decided (ACCEPT or REJECT), some appealedAt with an offset. */
function appealsAt(times: readonly number[], random: () => number, prefix = 'a'): { submitted: NewEvent[]; decisions: NewEvent[] } {
  const submitted: NewEvent[] = [];
  const decisions: NewEvent[] = [];
  times.forEach((t, i) => {
    const iso = new Date(t).toISOString();
    // The same instant written with an offset of hours only: filed under its UTC day and milliseconds.
    const at = i % 7 === 3 ? new Date(t + 2 * 3_600_000).toISOString().replace('Z', '+02:00') : iso;
    submitted.push(appeal(`${prefix}${i}`, ITEMS[i % ITEMS.length]!, at));
    const r = random();
    if (r < 0.33) decisions.push(decided(`${prefix}${i}`, 'ACCEPT'));
    else if (r < 0.66) decisions.push(decided(`${prefix}${i}`, 'REJECT'));
  });
  return { submitted, decisions };
}

/** The store, its finds counted: calls and documents handed back, per collection. */
function counting(store: ReadStore) {
  const finds = new Map<string, { calls: number; docs: number }>();
  const proxy = new Proxy(store, {
    get(target, prop, receiver) {
      if (prop !== 'find') return Reflect.get(target, prop, receiver) as unknown;
      return async (...args: Parameters<ReadStore['find']>) => {
        const found = await target.find(...args);
        const counted = finds.get(args[0]) ?? { calls: 0, docs: 0 };
        counted.calls += 1;
        counted.docs += found.length;
        finds.set(args[0], counted);
        return found;
      };
    },
  });
  return { store: proxy, finds, reset: () => finds.clear() };
}

describe('the appeals report, partial days from the buckets below the day', () => {
  let stores: ReturnType<typeof sqliteStores>;
  const opened: Array<ReturnType<typeof sqliteStores>> = [];
  afterEach(async () => {
    for (const s of opened.splice(0)) await s.close();
  });

  async function world(events: readonly NewEvent[]) {
    stores = sqliteStores();
    opened.push(stores);
    for (const index of appealOutcomesProjection.indexes ?? []) await stores.readStore.ensureIndex(index.collection, index.fields);
    for (let i = 0; i < events.length; i += 500) await stores.events.append('appeal-acme:fixture', events.slice(i, i + 500), 'any');
    await new ProjectionRunner(appealOutcomesProjection, stores.events, stores.readStore).catchUp();
    const counted = counting(stores.readStore);
    const host = { catchUp: () => Promise.resolve() } as unknown as ProjectionHost;
    const handler = new AppealsReportHandler(counted.store, host, { now: () => NOW });
    return { handler, counted };
  }

  it('answers as reading every appeal of the partial days did, for the default window and windows cut anywhere', async () => {
    const random = rng(20260310);
    const times = appealTimes(random);
    const { submitted, decisions } = appealsAt(times, random);
    const { handler, counted } = await world([...CALLBACKS, ...submitted, ...decisions]);

    const windows: Array<[string | undefined, string | undefined]> = [[undefined, undefined]];
    // Bounds on and beside the appeals' own instants (a window from or to exactly one appeal), and on round instants.
    for (let i = 0; i < 60; i++) {
      const a = times[Math.floor(random() * times.length)]! + Math.floor(random() * 3) - 1;
      const b = a + Math.floor(random() * (random() < 0.5 ? 3 * 3_600_000 : 20 * DAY_MS));
      windows.push([new Date(a).toISOString(), new Date(b).toISOString()]);
    }
    const from = NOW.getTime() - 30 * DAY_MS;
    windows.push(
      [new Date(from).toISOString(), new Date(from).toISOString()],
      [new Date(Math.floor(from / DAY_MS) * DAY_MS).toISOString(), NOW.toISOString()],
      [new Date(Math.floor(from / DAY_MS) * DAY_MS).toISOString(), new Date(Math.floor(NOW.getTime() / DAY_MS) * DAY_MS - 1).toISOString()],
      [new Date(Math.floor(from / 3_600_000) * 3_600_000).toISOString(), new Date(Math.floor(NOW.getTime() / 60_000) * 60_000).toISOString()],
      ['2026-02-08T00:00:00.000Z', '2026-02-08T23:59:59.999Z'],
      ['2026-02-08T12:34:56.788Z', '2026-02-08T12:34:56.790Z'],
      ['2026-03-10T11:59:59.999+02:00', '2026-03-10T13:00:00,001+01'],
    );
    let compared = 0;
    for (const [f, t] of windows) {
      const checked = checkReportWindow(f, t, NOW);
      if (!checked.ok) continue;
      const expected = await previousComputation(stores.readStore, 'acme', checked.window);
      counted.reset();
      const answer = await handler.execute(new AppealsReportQuery('acme', f, t));
      expect(answer, `window ${f} – ${t}`).toEqual(expected);
      // No appeal is read one by one: whole days' counts, and the partial days' buckets.
      expect(counted.finds.get(APPEAL_OUTCOMES)).toBeUndefined();
      const partial = windowDays(checked.window).filter((d) => !d.whole).length;
      expect(counted.finds.get(APPEAL_OUTCOME_BUCKETS)?.calls ?? 0).toBeLessThanOrEqual(partial * MAX_RUNS_PER_PARTIAL_DAY);
      compared += 1;
    }
    expect(compared).toBeGreaterThan(60);
    // The fixture is not empty where it matters: the default window's partial days hold appeals.
    const whole = await handler.execute(new AppealsReportQuery('acme', undefined, undefined));
    expect(whole.total.received).toBeGreaterThan(1000);
    expect(whole.rules.map((r) => r.id).sort()).toEqual(['r1', 'r2']);
    expect(whole.moderators.received).toBeGreaterThan(0);
    expect(whole.unattributed.received).toBeGreaterThan(0);
  });

  it('reads a bounded number of buckets for a partial day, however many appeals it holds', async () => {
    const random = rng(7);
    const from = NOW.getTime() - 30 * DAY_MS;
    const reads = async (times: number[]) => {
      const { submitted, decisions } = appealsAt(times, random);
      const { handler, counted } = await world([...CALLBACKS, ...submitted, ...decisions]);
      counted.reset();
      const report = await handler.execute(new AppealsReportQuery('acme', undefined, undefined));
      // What the partial days cost before: every appeal of both days read.
      const days = windowDays({ from: new Date(report.from), to: new Date(report.to) }).filter((d) => !d.whole);
      const appeals = (await Promise.all(days.map(({ day }) => stores.readStore.find(APPEAL_OUTCOMES, { orgId: 'acme', day })))).flat().length;
      return { ...counted.finds.get(APPEAL_OUTCOME_BUCKETS)!, appeals };
    };
    // A flood in both partial days: every millisecond of the seconds the window starts and ends in,
    // many appeals at the window's very bounds, and thousands more through the two days.
    const flood = (n: number) => {
      const times: number[] = [];
      for (const bound of [from, NOW.getTime()]) {
        const second = Math.floor(bound / 1000) * 1000;
        for (let ms = 0; ms < 1000; ms++) times.push(second + ms);
        for (let i = 0; i < n / 10; i++) times.push(bound);
        const dayStart = Math.floor(bound / DAY_MS) * DAY_MS;
        for (let i = 0; i < n; i++) times.push(dayStart + Math.floor(random() * DAY_MS));
      }
      return times;
    };
    const small = await reads(flood(200));
    const large = await reads(flood(4000));
    expect(small.appeals).toBeGreaterThan(2_400);
    expect(large.appeals).toBeGreaterThan(10_000);
    // Nine runs and 475 buckets at most per partial day, however many appeals: 135 and 186 here,
    // where reading the days' appeals was 2,440 and 10,800 documents.
    for (const read of [small, large]) {
      expect(read.calls).toBeLessThanOrEqual(2 * MAX_RUNS_PER_PARTIAL_DAY);
      expect(read.docs).toBeLessThanOrEqual(2 * MAX_BUCKETS_PER_PARTIAL_DAY);
    }
  });

  it("reads each run of buckets in the (orgId, unit, start) index's order, stopping at its end", async () => {
    const db = openSqlite(join(mkdtempSync(join(tmpdir(), 'warden-plans-')), 'read-models.db'));
    const { selects, plan } = recordSelects(db);
    const store = new SqliteReadStore(db);
    for (const index of appealOutcomesProjection.indexes ?? []) await store.ensureIndex(index.collection, index.fields);
    // A bucket written, so that the collection's table exists.
    await store.commit([
      { op: 'put', collection: APPEAL_OUTCOME_BUCKETS, id: 'x', doc: { orgId: 'acme', unit: 'h', start: '2026-03-10T00:00:00.000Z', total: {}, entries: [] } },
    ]);
    const host = { catchUp: () => Promise.resolve() } as unknown as ProjectionHost;
    await new AppealsReportHandler(store, host, { now: () => NOW }).execute(new AppealsReportQuery('acme', undefined, undefined));
    const plans = selects.filter((s) => s.sql.includes(APPEAL_OUTCOME_BUCKETS)).map(plan);
    expect(plans).toHaveLength(9);
    for (const detail of plans) {
      expect(detail).toContain(`USING INDEX rm/${APPEAL_OUTCOME_BUCKETS}/orgId,unit,start (<expr>=? AND <expr>=? AND <expr>>? AND <expr><?)`);
      expect(detail).not.toContain('USE TEMP B-TREE');
    }
    db.close();
  });

  it('covers a range of milliseconds with whole buckets, coarsest in the middle, in time order', () => {
    const at = (iso: string) => Date.parse(iso);
    const runs = bucketRanges(at('2026-02-08T12:34:56.789Z'), at('2026-02-09T00:00:00.000Z'));
    expect(runs.map((r) => [r.unit, new Date(r.gte).toISOString(), new Date(r.lt).toISOString()])).toEqual([
      ['ms', '2026-02-08T12:34:56.789Z', '2026-02-08T12:34:56.790Z'],
      ['10ms', '2026-02-08T12:34:56.790Z', '2026-02-08T12:34:57.000Z'],
      ['s', '2026-02-08T12:34:57.000Z', '2026-02-08T12:35:00.000Z'],
      ['m', '2026-02-08T12:35:00.000Z', '2026-02-08T13:00:00.000Z'],
      ['h', '2026-02-08T13:00:00.000Z', '2026-02-09T00:00:00.000Z'],
    ]);
    expect(bucketRanges(at('2026-03-10T00:00:00.000Z'), at('2026-03-10T12:34:56.793Z')).map((r) => r.unit)).toEqual(['h', 'm', 's', '10ms', 'ms']);
    expect(bucketRanges(5, 5)).toEqual([]);
    // Every millisecond once, whatever the cut: checked against the range itself.
    const random = rng(3);
    for (let i = 0; i < 2000; i++) {
      const day = at('2026-03-10T00:00:00.000Z');
      const a = day + Math.floor(random() * DAY_MS);
      const b = Math.min(day + DAY_MS, a + Math.floor(random() * (random() < 0.5 ? 5000 : DAY_MS)));
      const cover = bucketRanges(a, b);
      expect(cover.length).toBeLessThanOrEqual(MAX_RUNS_PER_PARTIAL_DAY);
      let next = a;
      for (const run of cover) {
        expect(run.gte).toBe(next);
        next = run.lt;
      }
      expect(next).toBe(a < b ? b : a);
    }
  });
});

/**
 * The report as the handler computed it before the buckets: whole days from their counts, and the
 * partial days from every appeal of the day, filtered by appealedAt.
 */
async function previousComputation(readStore: ReadStore, orgId: string, window: ReportWindow): Promise<AppealsReport> {
  const ZERO: OutcomeCounts = { received: 0, decided: 0, accepted: 0, rejected: 0 };
  const pick = (c: OutcomeCounts): OutcomeCounts => ({ received: c.received, decided: c.decided, accepted: c.accepted, rejected: c.rejected });
  const add = (into: OutcomeCounts, c: OutcomeCounts) => {
    into.received += c.received;
    into.decided += c.decided;
    into.accepted += c.accepted;
    into.rejected += c.rejected;
  };
  const view = (c: OutcomeCounts) => ({ ...pick(c), overturnRate: c.decided > 0 ? c.accepted / c.decided : null });
  const tallies = new Map<string, OutcomeEntry & OutcomeCounts>();
  const total = { ...ZERO };
  const count = (entry: OutcomeEntry, c: OutcomeCounts) => {
    const key = `${entry.dimension}\u0000${entry.id}`;
    const tally = tallies.get(key) ?? { dimension: entry.dimension, id: entry.id, name: entry.name, ...ZERO };
    tally.name = entry.name;
    add(tally, c);
    tallies.set(key, tally);
  };
  const from = window.from.toISOString();
  const to = window.to.toISOString();
  for (const { day, whole } of windowDays(window)) {
    if (whole) {
      const docs = await readStore.find<AppealOutcomeDayDoc>(APPEAL_OUTCOME_DAYS, { orgId, day });
      for (const d of docs) {
        if (d.dimension === 'total') add(total, pick(d));
        else count({ dimension: d.dimension, id: d.id, name: d.name }, pick(d));
      }
    } else {
      const appeals = (await readStore.find<AppealOutcomeDoc>(APPEAL_OUTCOMES, { orgId, day })).filter((a) => a.appealedAt >= from && a.appealedAt <= to);
      for (const a of appeals) {
        const c = { received: 1, decided: a.decision ? 1 : 0, accepted: a.decision === 'ACCEPT' ? 1 : 0, rejected: a.decision === 'REJECT' ? 1 : 0 };
        for (const entry of a.entries) count(entry, c);
        add(total, c);
      }
    }
  }
  const rows = (dimension: OutcomeEntry['dimension']) =>
    [...tallies.values()]
      .filter((t) => t.dimension === dimension)
      .sort((a, b) => b.received - a.received || a.id.localeCompare(b.id))
      .map((t) => ({ id: t.id, name: t.name, ...view(t) }));
  const single = (dimension: 'moderators' | 'unattributed') => view([...tallies.values()].find((t) => t.dimension === dimension) ?? ZERO);
  return {
    from,
    to,
    total: view(total),
    rules: rows('rule'),
    policies: rows('policy'),
    moderators: single('moderators'),
    unattributed: single('unattributed'),
  };
}
