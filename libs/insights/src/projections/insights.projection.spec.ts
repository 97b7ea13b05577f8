import { afterEach, describe, expect, it } from 'vitest';
import { anEvent } from '../../../../test/support/events.js';
import { crashingPartway } from '../../../../test/support/crashing-read-store.js';
import { sqliteStores } from '../../../../test/support/sqlite-stores.js';
import { ProjectionRunner, rebuildReadModels } from '#warden/eventstore';
import type { JsonObject, NewEvent } from '#warden/kernel';
import type { CheckpointMove, ReadStore, Write } from '#warden/readstore';
import { binUpperSeconds, durationBin } from '../domain/histogram.js';
import { summarize } from '../queries/get-insights/get-insights.handler.js';
import { insightsProjection } from './insights.projection.js';
import {
  INSIGHTS_APPEALS,
  INSIGHTS_DAYS,
  INSIGHTS_ITEMS,
  INSIGHTS_JOBS,
  INSIGHTS_QUEUE_DAYS,
  INSIGHTS_QUEUE_MINUTES,
  INSIGHTS_QUEUES,
  type InsightsDayDoc,
  type InsightsQueueDayDoc,
  type InsightsQueueMinutesDoc,
  type LegacyInsightsQueueDoc,
  MINUTE_FANOUT,
  MINUTE_LEVELS,
  queueDocId,
  queueMinutesDocId,
} from './insights.read-model.js';

const at = (event: NewEvent, occurredAt: string): NewEvent => ({ ...event, metadata: { ...event.metadata, occurredAt } });
const action = (deliveryId: string, itemId: string, trigger: string | undefined, when: string, rules: string[] = [], policies = ['hate']) =>
  at(
    anEvent('ActionCallbackRequested', {
      deliveryId,
      item: { id: itemId, typeId: 'post', typeName: 'Post' },
      action: { id: 'remove' },
      policies: policies.map((id) => ({ id, name: id, penalty: 'LOW' })),
      rules: rules.map((id) => ({ id, name: id })),
      custom: {},
      creator: null,
      ...(trigger ? { trigger } : {}),
    } as JsonObject),
    when,
  );
const opened = (jobId: string, queueId: string, when: string, orgId = 'acme') =>
  at(
    anEvent(
      'ReviewJobOpened',
      {
        jobId,
        queueId,
        generation: 1,
        item: { id: jobId, typeId: 'post', typeName: 'Post' },
        request: { requestId: `q-${jobId}`, source: 'REPORT', at: when, version: 1, report: null, action: null, policies: [], routedBy: null, fromJobId: null },
        carried: [],
        openedAt: when,
        reasons: {},
        subject: null,
      } as JsonObject,
      orgId,
    ),
    when,
  );
const decided = (jobId: string, when: string, moderator: string | null, type = 'CUSTOM_ACTION') =>
  at(
    anEvent('ReviewJobDecided', {
      jobId,
      decisionId: `d-${jobId}`,
      type,
      actor: moderator ? { userId: moderator } : null,
      actionIds: [],
      policies: [],
      reason: null,
      note: null,
      parameters: {},
      targetQueueId: null,
      closeReason: type === 'AUTOMATIC_CLOSE' ? 'ITEM_ACTIONED' : null,
      deliveryIds: [],
      decidedAt: when,
    } as JsonObject),
    when,
  );
const appeal = (appealId: string, itemId: string, when: string) =>
  at(
    anEvent('AppealSubmitted', {
      appealId,
      appealedBy: { id: 'u', typeId: 'user' },
      appealedAt: when,
      actionedItem: { id: itemId, typeId: 'post' },
      actionedItemData: {},
      actionsTaken: ['remove'],
      appealReason: null,
      violatingPolicyIds: [],
      additionalItems: [],
      subject: 'u',
    } as JsonObject),
    when,
  );
const appealDecided = (appealId: string, decision: string, when: string) =>
  at(anEvent('AppealDecided', { appealId, decision, jobId: 'j', decisionId: 'x', decidedBy: { userId: 'm' }, decidedAt: when }), when);

/** The writes of a commit in the order MongoDB makes them: the last of each document, collection by collection as first written (MongoReadStore.commit). */
function inMongoOrder(writes: readonly Write[]): Write[] {
  const last = new Map<string, Write>();
  for (const w of writes) last.set(`${w.collection}\u0000${w.id}`, w);
  const byCollection = new Map<string, Write[]>();
  for (const w of last.values()) (byCollection.get(w.collection) ?? byCollection.set(w.collection, []).get(w.collection)!).push(w);
  return [...byCollection.values()].flat();
}

/** The store as a MongoDB commit cut short leaves it: its first `landed` writes in that order stored, then the crash (the checkpoint stays). */
function cutShort(store: ReadStore, landed: number): ReadStore {
  return new Proxy(store, {
    get(target, prop, receiver) {
      if (prop !== 'commit') return Reflect.get(target, prop, receiver) as unknown;
      return async (writes: readonly Write[], _checkpoint?: CheckpointMove) => {
        await target.commit(inMongoOrder(writes).slice(0, landed));
        throw new Error(`crashed after ${landed} writes`);
      };
    },
  });
}

/** What the projection reads and commits through this store: each document's JSON length. */
function metered(store: ReadStore) {
  let read: number[] = [];
  let written: number[] = [];
  const size = (doc: object | undefined) => (doc === undefined ? 0 : JSON.stringify(doc).length);
  const proxy = new Proxy(store, {
    get(target, prop, receiver) {
      if (prop === 'getVersioned')
        return async (collection: string, id: string) => {
          const found = await target.getVersioned(collection, id);
          read.push(size(found?.doc));
          return found;
        };
      if (prop === 'commit')
        return async (writes: readonly Write[], checkpoint?: CheckpointMove) => {
          written.push(...writes.map((w) => (w.op === 'put' ? size(w.doc) : 0)));
          return target.commit(writes, checkpoint);
        };
      return Reflect.get(target, prop, receiver) as unknown;
    },
  });
  return {
    store: proxy,
    /** What was read and written since the last call. */
    take() {
      const taken = { reads: read.length, readBytes: read.reduce((a, b) => a + b, 0), largestRead: Math.max(0, ...read), writes: written.length };
      const result = { ...taken, writtenBytes: written.reduce((a, b) => a + b, 0), largestWrite: Math.max(0, ...written) };
      read = [];
      written = [];
      return result;
    },
  };
}

describe('insights projection', () => {
  let stores: ReturnType<typeof sqliteStores>;
  afterEach(async () => {
    await stores?.close();
  });

  async function seed() {
    const { events } = stores;
    await events.append('item_evaluation-acme:p1', [action('a1', 'p1', undefined, '2026-03-01T10:00:00Z', ['spam-rule'], ['spam'])], 'any');
    await events.append('item_evaluation-acme:p2', [action('a2', 'p2', 'rule', '2026-03-02T10:00:00Z', ['spam-rule'], ['spam', 'hate'])], 'any');
    await events.append('user_strikes-acme:u', [action('a3', 'u', 'strike-threshold', '2026-03-02T11:00:00Z', [], [])], 'any');
    await events.append('action_execution-acme:x', [action('a4', 'p3', 'post-actions', '2026-03-02T12:00:00Z')], 'any');
    await events.append('review_job-acme:j1', [opened('j1', 'default', '2026-03-01T08:00:00Z')], 'any');
    await events.append('review_job-acme:j2', [opened('j2', 'default', '2026-03-01T09:00:00Z')], 'any');
    await events.append('review_job-acme:j3', [opened('j3', 'default', '2026-03-01T09:30:00Z')], 'any');
    await events.append('review_job-acme:j1', [decided('j1', '2026-03-02T08:00:00Z', 'mod-a'), action('a5', 'j1', 'decision', '2026-03-02T08:00:00Z')], 'any');
    await events.append('review_job-acme:j2', [decided('j2', '2026-03-02T09:01:00Z', 'mod-b', 'IGNORE')], 'any');
    await events.append('review_job-acme:j3', [decided('j3', '2026-03-02T09:30:00Z', null, 'AUTOMATIC_CLOSE')], 'any');
    await events.append('review_job-acme:j2', [decided('j2', '2026-03-02T10:00:00Z', 'mod-b')], 'any');
    await events.append('review_job-other:j9', [opened('j9', 'default', '2026-03-01T08:00:00Z', 'other')], 'any');
    await events.append(
      'rule_daily_actions-acme:capped:2026-03-02',
      [
        at(anEvent('RuleDailyActionCounted', { ruleId: 'capped', item: { id: 'p', typeId: 'post' }, version: 1, content: 'c1' }), '2026-03-02T10:00:00Z'),
        at(anEvent('RuleDailyActionCounted', { ruleId: 'capped', item: { id: 'q', typeId: 'post' }, version: 1, content: 'c2' }), '2026-03-02T10:05:00Z'),
      ],
      'any',
    );
    await events.append('appeal-acme:ap1', [appeal('ap1', 'p2', '2026-03-02T13:00:00Z'), appealDecided('ap1', 'ACCEPT', '2026-03-03T14:00:00Z')], 'any');
    await events.append(
      'appeal-acme:ap2',
      [
        appeal('ap2', 'p1', '2026-03-02T13:00:00Z'),
        appealDecided('ap2', 'REJECT', '2026-03-03T15:00:00Z'),
        appealDecided('ap2', 'ACCEPT', '2026-03-03T16:00:00Z'),
      ],
      'any',
    );
  }

  const all = async () => ({
    days: await stores.readStore.find<InsightsDayDoc>(INSIGHTS_DAYS, { orgId: 'acme' }),
    queueDays: await stores.readStore.find<InsightsQueueDayDoc>(INSIGHTS_QUEUE_DAYS, { orgId: 'acme' }),
  });
  /** The queues' open jobs: their documents and their trees' nodes, by id (a redelivery may write them in another order). */
  const state = async () => ({
    queues: await stores.readStore.find(INSIGHTS_QUEUES, {}, { byId: true }),
    minutes: await stores.readStore.find(INSIGHTS_QUEUE_MINUTES, {}, { byId: true }),
  });
  const report = async (queueDays?: InsightsQueueDayDoc[]) => {
    const docs = await all();
    return summarize({
      period: { from: '2026-03-01', to: '2026-03-04' },
      now: new Date('2026-03-05T00:00:00Z'),
      queueId: null,
      queues: ['default'],
      days: docs.days,
      queueDays: queueDays ?? docs.queueDays,
      before: [],
      catalog: { queues: new Map([['default', 'Default']]), policies: new Map(), rules: new Map([['capped', { name: 'Capped', maxDailyActions: 5 }]]) },
      known: ['default'],
    });
  };

  it('buckets actions by source and policy, queue depth and waits, time to decision, moderators, appeals and caps per day', async () => {
    stores = sqliteStores();
    await seed();
    await new ProjectionRunner(insightsProjection, stores.events, stores.readStore).catchUp();
    const r = await report();
    expect(r.actionsBySource).toEqual([
      { day: '2026-03-01', rule: 1, moderator: 0, threshold: 0, executed: 0 },
      { day: '2026-03-02', rule: 1, moderator: 1, threshold: 1, executed: 1 },
      { day: '2026-03-03', rule: 0, moderator: 0, threshold: 0, executed: 0 },
      { day: '2026-03-04', rule: 0, moderator: 0, threshold: 0, executed: 0 },
    ]);
    expect(r.actionsByPolicy.policies.map((p) => p.id)).toEqual(['', 'hate', 'spam']);
    expect(r.actionsByPolicy.rows[1]!.counts).toEqual([1, 3, 1]);
    // Three opened on the 1st; all closed on the 2nd (the IGNORE decision after its close is no second close).
    expect(r.queueDepth.rows.map((row) => row.depth[0])).toEqual([3, 0, 0, 0]);
    // End of the 1st: j1 (08:00) had waited 16 h; on the 2nd j2 (09:00) waited 24 h 1 min when decided.
    expect(r.queueDepth.rows.map((row) => row.oldestWaitSeconds[0])).toEqual([16 * 3600, 24 * 3600 + 60, 0, 0]);
    expect(r.timeToDecision.byQueue[0]).toMatchObject({ queueId: 'default', decided: 2 });
    expect(r.timeToDecision.byQueue[0]!.p50Seconds).toBe(binUpperSeconds(durationBin(24 * 3600_000)));
    expect(r.decisionsByModerator).toEqual({
      moderators: ['mod-a', 'mod-b'],
      rows: [
        { day: '2026-03-01', counts: [0, 0] },
        { day: '2026-03-02', counts: [1, 1] },
        { day: '2026-03-03', counts: [0, 0] },
        { day: '2026-03-04', counts: [0, 0] },
      ],
    });
    expect(r.appealOverturns.byRule).toEqual([{ id: 'spam-rule', name: 'spam-rule', decided: 2, overturned: 1, overturnRate: 0.5 }]);
    expect(r.appealOverturns.byPolicy.map((o) => [o.id, o.decided, o.overturned])).toEqual([
      ['hate', 1, 1],
      ['spam', 2, 1],
    ]);
    expect(r.automation).toMatchObject({ automated: 3, human: 2 });
    expect(r.ruleActions.rules).toEqual([{ id: 'capped', name: 'Capped', maxDailyActions: 5 }]);
    expect(r.ruleActions.rows[1]!.counts).toEqual([2]);
  });

  it('a redelivered batch, or a rebuild, changes no bucket', async () => {
    stores = sqliteStores();
    await seed();
    await new ProjectionRunner(insightsProjection, stores.events, stores.readStore).catchUp();
    const once = await all();
    const open = await state();
    // The checkpoint set back as a crash before its move would leave it: every event comes again.
    await stores.readStore.commit([], { projection: insightsProjection.name, from: await stores.readStore.checkpoint(insightsProjection.name), to: 0 });
    await new ProjectionRunner(insightsProjection, stores.events, stores.readStore).catchUp();
    expect(await all()).toEqual(once);
    expect(await state()).toEqual(open);
    await rebuildReadModels([insightsProjection], stores.events, stores.readStore);
    expect(await all()).toEqual(once);
    expect(await state()).toEqual(open);
  });

  it.each([
    ['everything but the daily counters', insightsProjection.collections.filter((c) => c !== INSIGHTS_DAYS)],
    ['the jobs, items and appeals only', [INSIGHTS_JOBS, INSIGHTS_ITEMS, INSIGHTS_APPEALS]],
  ])('counts each job close and appeal decision once when a commit landed %s (MongoDB writes collection by collection)', async (_, landed) => {
    const crashed = sqliteStores();
    stores = sqliteStores();
    await seed();
    await new ProjectionRunner(insightsProjection, stores.events, stores.readStore).catchUp();
    const expected = await all();
    await stores.close();
    stores = crashed;
    await seed();
    await expect(new ProjectionRunner(insightsProjection, stores.events, crashingPartway(stores.readStore, landed)).catchUp()).rejects.toThrow();
    await new ProjectionRunner(insightsProjection, stores.events, stores.readStore).catchUp();
    expect(await all()).toEqual(expected);
  });

  it('carries a queue day without changes forward from the last snapshot', async () => {
    stores = sqliteStores();
    await stores.events.append('review_job-acme:j1', [opened('j1', 'default', '2026-03-01T12:00:00Z')], 'any');
    await new ProjectionRunner(insightsProjection, stores.events, stores.readStore).catchUp();
    const r = await report();
    expect(r.queueDepth.rows.map((row) => row.depth[0])).toEqual([1, 1, 1, 1]);
    expect(r.queueDepth.rows.map((row) => row.oldestWaitSeconds[0])).toEqual([12, 36, 60, 84].map((h) => h * 3600));
  });

  it('completes a commit cut short anywhere in the order MongoDB writes it: snapshots first, then the queue state they are computed from', async () => {
    stores = sqliteStores();
    await seed();
    let order: string[] = [];
    const watched = new Proxy(stores.readStore, {
      get(target, prop, receiver) {
        if (prop !== 'commit') return Reflect.get(target, prop, receiver) as unknown;
        return async (writes: readonly Write[], checkpoint?: CheckpointMove) => {
          order = inMongoOrder(writes).map((w) => w.collection);
          return target.commit(writes, checkpoint);
        };
      },
    });
    await new ProjectionRunner(insightsProjection, stores.events, watched).catchUp();
    const expected = { ...(await all()), ...(await state()) };
    const first = (collection: string) => order.indexOf(collection);
    expect(first(INSIGHTS_QUEUE_DAYS)).toBeLessThan(first(INSIGHTS_QUEUE_MINUTES));
    expect(first(INSIGHTS_QUEUE_MINUTES)).toBeLessThan(first(INSIGHTS_QUEUES));
    for (let landed = 0; landed < order.length; landed++) {
      await stores.close();
      stores = sqliteStores();
      await seed();
      await expect(new ProjectionRunner(insightsProjection, stores.events, cutShort(stores.readStore, landed)).catchUp()).rejects.toThrow();
      await new ProjectionRunner(insightsProjection, stores.events, stores.readStore).catchUp();
      expect({ ...(await all()), ...(await state()) }, `${landed} writes landed`).toEqual(expected);
    }
  });

  it('reads and writes the same few small documents per job event however old the backlog: 5,000 minutes open, then the oldest closed', async () => {
    stores = sqliteStores();
    // The oldest minutes empty across the edge of a level-2 node (at the 100th minute), not only a leaf's.
    const edge = MINUTE_FANOUT ** 3;
    const t0 = Math.ceil(Date.parse('2026-03-01T00:00:00Z') / 60_000 / edge) * edge - 100;
    const minute = (i: number) => new Date((t0 + i) * 60_000).toISOString();
    const backlog = 5000;
    for (let i = 0; i < backlog; i += 500)
      await stores.events.append(
        'review_job-acme:backlog',
        Array.from({ length: 500 }, (_, k) => opened(`b${i + k}`, 'default', minute(i + k))),
        'any',
      );
    await new ProjectionRunner(insightsProjection, stores.events, stores.readStore).catchUp();

    const meter = metered(stores.readStore);
    const runner = new ProjectionRunner(insightsProjection, stores.events, meter.store);
    const apply = async (event: NewEvent) => {
      meter.take();
      await stores.events.append('review_job-acme:more', [event], 'any');
      await runner.catchUp();
      return meter.take();
    };
    const measured = [await apply(opened(`b${backlog}`, 'default', minute(backlog)))];
    const open = new Set(Array.from({ length: backlog + 1 }, (_, i) => i));
    const day = '2026-06-10';
    const decidedAt = (i: number) => new Date(Date.parse(`${day}T12:00:00Z`) + i * 1000).toISOString();
    let maxWaitSeconds = 0;
    for (let i = 0; i < 130; i++) {
      maxWaitSeconds = Math.max(maxWaitSeconds, Math.round((Date.parse(decidedAt(i)) - Date.parse(minute(Math.min(...open)))) / 1000));
      measured.push(await apply(decided(`b${i}`, decidedAt(i), 'mod-a')));
      open.delete(i);
    }
    // Per event: the job, the queue, the day's snapshot and a node per level on the paths to the
    // job's minute and to the oldest one, each under MINUTE_FANOUT keys; the queue's document once
    // held every open minute (here about 70 KB, read and written at each event).
    for (const m of measured) {
      expect(m.reads).toBeLessThanOrEqual(3 * MINUTE_LEVELS + 3);
      expect(m.writes).toBeLessThanOrEqual(MINUTE_LEVELS + 3);
      expect(m.largestRead).toBeLessThanOrEqual(1500);
      expect(m.largestWrite).toBeLessThanOrEqual(1500);
      expect(m.readBytes + m.writtenBytes).toBeLessThanOrEqual(8000);
    }

    const [snapshot] = await stores.readStore.find<InsightsQueueDayDoc>(INSIGHTS_QUEUE_DAYS, { orgId: 'acme', day });
    expect(snapshot).toMatchObject({ closed: 130, decided: 130, depthEnd: backlog + 1 - 130, oldestOpenedAtEnd: minute(130), maxWaitSeconds });
    const docs = await all();
    const r = summarize({
      period: { from: day, to: day },
      now: new Date(`${day}T18:00:00Z`),
      queueId: null,
      queues: ['default'],
      days: docs.days,
      queueDays: docs.queueDays.filter((d) => d.day === day),
      before: [],
      catalog: { queues: new Map([['default', 'Default']]), policies: new Map(), rules: new Map() },
      known: ['default'],
    });
    expect(r.queueDepth.rows).toEqual([
      { day, depth: [backlog + 1 - 130], oldestWaitSeconds: [Math.max(maxWaitSeconds, (Date.parse(`${day}T18:00:00Z`) - Date.parse(minute(130))) / 1000)] },
    ]);
  });

  it('moves a queue document written before the tree (every open minute in one map) into the tree at its next change', async () => {
    const first = [
      opened('j1', 'default', '2026-03-01T08:00:00Z'),
      opened('j2', 'default', '2026-03-01T08:00:30Z'),
      opened('j3', 'default', '2026-03-01T09:30:00Z'),
      opened('j4', 'default', '2026-03-02T10:00:00Z'),
    ];
    const then = [
      decided('j1', '2026-03-02T11:00:00Z', 'mod-a'),
      opened('j5', 'default', '2026-03-02T07:00:00Z'),
      decided('j2', '2026-03-02T12:00:00Z', 'mod-a'),
      decided('j5', '2026-03-03T08:00:00Z', 'mod-b'),
      decided('j3', '2026-03-03T09:00:00Z', null, 'AUTOMATIC_CLOSE'),
    ];
    const run = async (upgrade: boolean) => {
      stores = sqliteStores();
      for (const e of first) await stores.events.append('review_job-acme:j', [e], 'any');
      await new ProjectionRunner(insightsProjection, stores.events, stores.readStore).catchUp();
      if (upgrade) {
        // As an earlier release left the queue: its open minutes in its document, no tree.
        const minuteOf = (at: string) => String(Math.floor(Date.parse(at) / 60_000));
        const legacy: LegacyInsightsQueueDoc = {
          orgId: 'acme',
          queueId: 'default',
          depth: 4,
          openByMinute: { [minuteOf('2026-03-01T08:00:00Z')]: 2, [minuteOf('2026-03-01T09:30:00Z')]: 1, [minuteOf('2026-03-02T10:00:00Z')]: 1 },
          oldestMinute: Number(minuteOf('2026-03-01T08:00:00Z')),
        };
        const nodes = await stores.readStore.find<InsightsQueueMinutesDoc>(INSIGHTS_QUEUE_MINUTES, {});
        expect(nodes.length).toBeGreaterThan(MINUTE_LEVELS);
        await stores.readStore.commit([
          ...nodes.map((n): Write => ({ op: 'delete', collection: INSIGHTS_QUEUE_MINUTES, id: queueMinutesDocId(n.orgId, n.queueId, n.level, n.index) })),
          { op: 'put', collection: INSIGHTS_QUEUES, id: queueDocId('acme', 'default'), doc: legacy as never },
        ]);
        expect(await stores.readStore.find(INSIGHTS_QUEUE_MINUTES, {})).toEqual([]);
        expect(await stores.readStore.get(INSIGHTS_QUEUES, queueDocId('acme', 'default'))).toEqual(legacy);
      }
      for (const e of then) await stores.events.append('review_job-acme:j', [e], 'any');
      await new ProjectionRunner(insightsProjection, stores.events, stores.readStore).catchUp();
      return { ...(await all()), ...(await state()) };
    };
    const straight = await run(false);
    await stores.close();
    const upgraded = await run(true);
    expect(upgraded).toEqual(straight);
    // Only j4 is still open: the queue's document holds its count and no minutes any more.
    expect(upgraded.queues).toEqual([{ orgId: 'acme', queueId: 'default', depth: 1, open: { '0': 1 } }]);
  });
});
