import { afterEach, describe, expect, it } from 'vitest';
import { anEvent } from '../../../../test/support/events.js';
import { crashingPartway } from '../../../../test/support/crashing-read-store.js';
import { sqliteStores } from '../../../../test/support/sqlite-stores.js';
import { ProjectionRunner, rebuildReadModels } from '#warden/eventstore';
import type { JsonObject, NewEvent } from '#warden/kernel';
import { binUpperSeconds, durationBin } from '../domain/histogram.js';
import { summarize } from '../queries/get-insights/get-insights.handler.js';
import { insightsProjection } from './insights.projection.js';
import {
  INSIGHTS_APPEALS,
  INSIGHTS_DAYS,
  INSIGHTS_ITEMS,
  INSIGHTS_JOBS,
  INSIGHTS_QUEUE_DAYS,
  type InsightsDayDoc,
  type InsightsQueueDayDoc,
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
    // The checkpoint set back as a crash before its move would leave it: every event comes again.
    await stores.readStore.commit([], { projection: insightsProjection.name, from: await stores.readStore.checkpoint(insightsProjection.name), to: 0 });
    await new ProjectionRunner(insightsProjection, stores.events, stores.readStore).catchUp();
    expect(await all()).toEqual(once);
    await rebuildReadModels([insightsProjection], stores.events, stores.readStore);
    expect(await all()).toEqual(once);
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
});
