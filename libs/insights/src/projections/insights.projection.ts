import type { AppealDecided, AppealSubmitted } from '#warden/appeals/contracts';
import type { ActionCallbackRequested } from '#warden/callbacks/contracts';
import { eventProjection, type ProjectionContext } from '#warden/eventstore';
import { parseStreamName, type RecordedOf } from '#warden/kernel';
import type { ReviewJobDecided, ReviewJobOpened } from '#warden/review/contracts';
import type { ItemEvaluated, RuleDailyActionCounted } from '#warden/rules/contracts';
import { durationBin } from '../domain/histogram.js';
import {
  type ActionSource,
  appealDocId,
  dayDocId,
  emptyDay,
  emptyQueueDay,
  INSIGHTS_APPEALS,
  INSIGHTS_DAYS,
  INSIGHTS_ITEMS,
  INSIGHTS_JOBS,
  INSIGHTS_QUEUE_DAYS,
  INSIGHTS_QUEUE_MINUTES,
  INSIGHTS_QUEUES,
  type InsightsAppealDoc,
  type InsightsDayDoc,
  type InsightsItemDoc,
  type InsightsJobDoc,
  type InsightsQueueDayDoc,
  itemDocId,
  jobDocId,
  minuteStart,
  queueDayDocId,
} from './insights.read-model.js';
import { OpenMinutes } from './open-minutes.js';

export const INSIGHTS_PROJECTION = 'insights';

type InsightsEvent = ActionCallbackRequested | ItemEvaluated | RuleDailyActionCounted | ReviewJobOpened | ReviewJobDecided | AppealSubmitted | AppealDecided;

const utcDay = (at: string) => new Date(at).toISOString().slice(0, 10);
const bump = (counts: { [key: string]: number }, key: string, n = 1) => (counts[key] = (counts[key] ?? 0) + n);
const put = (ctx: ProjectionContext, collection: string, id: string, doc: object) => ctx.put(collection, id, doc as never);

async function day(ctx: ProjectionContext, orgId: string, d: string): Promise<{ id: string; doc: InsightsDayDoc }> {
  const id = dayDocId(orgId, d);
  return { id, doc: (await ctx.get<InsightsDayDoc>(INSIGHTS_DAYS, id)) ?? emptyDay(orgId, d) };
}

/** Who published the action (docs/insights.md, "Sources"); a decision recorded before `trigger` was is told apart by its `actorEmail`. */
export function actionSource(data: ActionCallbackRequested['data']): ActionSource {
  switch (data.trigger) {
    case 'decision':
      return 'moderator';
    case 'strike-threshold':
      return 'threshold';
    case 'post-actions':
      return 'executed';
    default:
      return 'actorEmail' in data ? 'moderator' : 'rule';
  }
}

async function onAction(event: RecordedOf<ActionCallbackRequested>, ctx: ProjectionContext): Promise<void> {
  const data = event.data;
  const orgId = event.metadata.orgId;
  const source = actionSource(data);
  const policies = data.policies.map((p) => p.id);
  const counters = await day(ctx, orgId, utcDay(event.metadata.occurredAt));
  bump(counters.doc.actions, source);
  for (const policyId of policies.length > 0 ? policies : ['']) bump((counters.doc.actionsByPolicy[policyId] ??= {}), source);
  put(ctx, INSIGHTS_DAYS, counters.id, counters.doc);

  // What an appeal of this action is attributed to, as the appeals report does (docs/review.md, "The appeals report").
  const id = itemDocId(orgId, data.item.typeId, data.item.id);
  const item = (await ctx.get<InsightsItemDoc>(INSIGHTS_ITEMS, id)) ?? { orgId, actions: {} };
  const known = item.actions[data.action.id] ?? { rules: [], policies: [] };
  const rules = source === 'rule' ? data.rules.map((r) => r.id) : [];
  item.actions[data.action.id] = {
    rules: [...new Set([...known.rules, ...rules])].sort(),
    policies: [...new Set([...known.policies, ...policies])].sort(),
  };
  put(ctx, INSIGHTS_ITEMS, id, item);
}

/** As the rules page counts a rule's actions of a day (docs/rules.md, "The rules page"). */
async function onEvaluated(event: RecordedOf<ItemEvaluated>, ctx: ProjectionContext): Promise<void> {
  const { environment, rules, actions } = event.data;
  if (environment !== 'LIVE') return;
  const acted = rules.filter((rule) => rule.outcome === 'passed' && rule.capped !== true && actions.some((a) => a.rules.some((r) => r.id === rule.id)));
  if (acted.length === 0) return;
  const counters = await day(ctx, event.metadata.orgId, utcDay(event.metadata.occurredAt));
  for (const rule of acted) (counters.doc.rules[rule.id] ??= { counted: 0, acted: 0 }).acted += 1;
  put(ctx, INSIGHTS_DAYS, counters.id, counters.doc);
}

async function onCounted(event: RecordedOf<RuleDailyActionCounted>, ctx: ProjectionContext): Promise<void> {
  const [orgId, ruleId, d] = parseStreamName(event.streamName).idParts as [string, string, string];
  const counters = await day(ctx, orgId, d);
  const rule = (counters.doc.rules[ruleId] ??= { counted: 0, acted: 0 });
  // The stream is the rule's day: its length is the count.
  rule.counted = Math.max(rule.counted, event.revision + 1);
  put(ctx, INSIGHTS_DAYS, counters.id, counters.doc);
}

/** The queue's snapshot of day `d`, or its first one, from the queue's depth and oldest open minute before the change. */
async function queueDay(ctx: ProjectionContext, orgId: string, queueId: string, d: string, queue: OpenMinutes, oldest: number | null) {
  const id = queueDayDocId(orgId, queueId, d);
  const doc = (await ctx.get<InsightsQueueDayDoc>(INSIGHTS_QUEUE_DAYS, id)) ?? emptyQueueDay(orgId, queueId, d, queue.depth, minuteStart(oldest));
  return { id, doc };
}

const minuteOf = (at: string) => Math.floor(Date.parse(at) / 60_000);

// A job's events write the day's snapshot before the queue's state it is computed from (the tree's
// nodes, then the queue's document, OpenMinutes.save): MongoDB writes a batch collection by
// collection in the order they were first written, so a commit cut short never leaves the state
// ahead of a snapshot that its redelivery would then compute from it.

async function onJobOpened(event: RecordedOf<ReviewJobOpened>, ctx: ProjectionContext): Promise<void> {
  const { jobId, queueId, openedAt } = event.data;
  const orgId = event.metadata.orgId;
  const job: InsightsJobDoc = { orgId, queueId, openedAt, closed: false };
  put(ctx, INSIGHTS_JOBS, jobDocId(orgId, jobId), job);
  const queue = await OpenMinutes.load(ctx, orgId, queueId);
  const oldest = await queue.oldestMinute();
  const snapshot = await queueDay(ctx, orgId, queueId, utcDay(openedAt), queue, oldest);
  const minute = minuteOf(openedAt);
  await queue.opened(minute);
  snapshot.doc.opened += 1;
  snapshot.doc.depthEnd = queue.depth;
  snapshot.doc.oldestOpenedAtEnd = minuteStart(oldest === null ? minute : Math.min(oldest, minute));
  put(ctx, INSIGHTS_QUEUE_DAYS, snapshot.id, snapshot.doc);
  queue.save();
}

/** Every way a job closes is a decision (an automatic close too): the depth falls; a moderator's decision is timed and counted. */
async function onJobDecided(event: RecordedOf<ReviewJobDecided>, ctx: ProjectionContext): Promise<void> {
  const { jobId, decidedAt, type, actor } = event.data;
  const orgId = event.metadata.orgId;
  const jobId_ = jobDocId(orgId, jobId);
  const job = await ctx.get<InsightsJobDoc>(INSIGHTS_JOBS, jobId_);
  // Closed by an earlier event; one this event closed (a redelivery) goes on to its guarded writes.
  if (!job || (job.closed && (await ctx.writtenBefore(INSIGHTS_JOBS, jobId_)))) return;
  put(ctx, INSIGHTS_JOBS, jobId_, { ...job, closed: true });
  const queue = await OpenMinutes.load(ctx, orgId, job.queueId);
  const oldest = await queue.oldestMinute();
  const snapshot = await queueDay(ctx, orgId, job.queueId, utcDay(decidedAt), queue, oldest);
  if (oldest !== null)
    snapshot.doc.maxWaitSeconds = Math.max(snapshot.doc.maxWaitSeconds, Math.max(0, Math.round((Date.parse(decidedAt) - oldest * 60_000) / 1000)));
  await queue.closed(minuteOf(job.openedAt));
  snapshot.doc.closed += 1;
  snapshot.doc.depthEnd = queue.depth;
  // The nodes just read: a walk to the next open minute only when this job's was the oldest and emptied.
  snapshot.doc.oldestOpenedAtEnd = minuteStart(await queue.oldestMinute());
  if (type !== 'AUTOMATIC_CLOSE' && actor !== null) {
    snapshot.doc.decided += 1;
    bump(snapshot.doc.timeToDecision, String(durationBin(Date.parse(decidedAt) - Date.parse(job.openedAt))));
    bump(snapshot.doc.byModerator, actor.userId);
  }
  put(ctx, INSIGHTS_QUEUE_DAYS, snapshot.id, snapshot.doc);
  queue.save();
}

async function onAppeal(event: RecordedOf<AppealSubmitted>, ctx: ProjectionContext): Promise<void> {
  const { appealId, actionedItem, actionsTaken } = event.data;
  const orgId = event.metadata.orgId;
  const id = appealDocId(orgId, appealId);
  if (await ctx.writtenBefore(INSIGHTS_APPEALS, id)) return;
  const item = await ctx.get<InsightsItemDoc>(INSIGHTS_ITEMS, itemDocId(orgId, actionedItem.typeId, actionedItem.id));
  const named = actionsTaken.flatMap((actionId) => (item?.actions[actionId] ? [item.actions[actionId]] : []));
  const doc: InsightsAppealDoc = {
    orgId,
    rules: [...new Set(named.flatMap((a) => a.rules))].sort(),
    policies: [...new Set(named.flatMap((a) => a.policies))].sort(),
    counted: false,
  };
  put(ctx, INSIGHTS_APPEALS, id, doc);
}

/** Counted once, on the day it was decided; ACCEPT overturns the appealed actions. */
async function onAppealDecided(event: RecordedOf<AppealDecided>, ctx: ProjectionContext): Promise<void> {
  const { appealId, decision, decidedAt } = event.data;
  const orgId = event.metadata.orgId;
  const id = appealDocId(orgId, appealId);
  const appeal = await ctx.get<InsightsAppealDoc>(INSIGHTS_APPEALS, id);
  if (!appeal || (appeal.counted && (await ctx.writtenBefore(INSIGHTS_APPEALS, id)))) return;
  put(ctx, INSIGHTS_APPEALS, id, { ...appeal, counted: true });
  const counters = await day(ctx, orgId, utcDay(decidedAt));
  const overturned = decision === 'ACCEPT' ? 1 : 0;
  for (const ruleId of appeal.rules) {
    const o = (counters.doc.appealsByRule[ruleId] ??= { decided: 0, overturned: 0 });
    o.decided += 1;
    o.overturned += overturned;
  }
  for (const policyId of appeal.policies) {
    const o = (counters.doc.appealsByPolicy[policyId] ??= { decided: 0, overturned: 0 });
    o.decided += 1;
    o.overturned += overturned;
  }
  put(ctx, INSIGHTS_DAYS, counters.id, counters.doc);
}

/**
 * The Insights buckets (docs/insights.md). Ids, types, times and counts only: nothing sealed is
 * read, so an erasure changes no chart. Redelivery changes nothing, by construction: every
 * document written carries its event's log position and the unit of work skips an event for a
 * document that already reflects it (docs/architecture.md, "Read side"), so an event's
 * contribution to a bucket is made once; the per-job and per-appeal documents also remember that
 * their close or outcome was counted. A queue's open jobs are counts moved by one per event, each
 * from its own document's state (OpenMinutes), in documents of bounded size: what a job's event
 * reads and writes does not grow with the queue's backlog.
 */
export const insightsProjection = eventProjection<InsightsEvent>({
  name: INSIGHTS_PROJECTION,
  collections: [INSIGHTS_DAYS, INSIGHTS_QUEUE_DAYS, INSIGHTS_QUEUES, INSIGHTS_QUEUE_MINUTES, INSIGHTS_JOBS, INSIGHTS_ITEMS, INSIGHTS_APPEALS],
  eventTypes: ['ActionCallbackRequested', 'ItemEvaluated', 'RuleDailyActionCounted', 'ReviewJobOpened', 'ReviewJobDecided', 'AppealSubmitted', 'AppealDecided'],
  needsPersonalData: false,
  ownThread: true,
  indexes: [
    { collection: INSIGHTS_DAYS, fields: ['orgId', 'day'] },
    { collection: INSIGHTS_QUEUE_DAYS, fields: ['orgId', 'day'] },
    { collection: INSIGHTS_QUEUE_DAYS, fields: ['orgId', 'queueId', 'day'] },
  ],
  async apply(event, ctx) {
    switch (event.type) {
      case 'ActionCallbackRequested':
        return onAction(event, ctx);
      case 'ItemEvaluated':
        return onEvaluated(event, ctx);
      case 'RuleDailyActionCounted':
        return onCounted(event, ctx);
      case 'ReviewJobOpened':
        return onJobOpened(event, ctx);
      case 'ReviewJobDecided':
        return onJobDecided(event, ctx);
      case 'AppealSubmitted':
        return onAppeal(event, ctx);
      case 'AppealDecided':
        return onAppealDecided(event, ctx);
    }
  },
});
