import { createHash } from 'node:crypto';
import { utcIsoOf } from '#warden/catalog/contracts';
import type { Projection, ProjectionContext } from '#warden/eventstore';
import { parseStreamName, type RecordedEvent } from '#warden/kernel';
import type { ReadDocument } from '#warden/readstore';
import { durationBucket } from '../domain/durations.js';
import {
  type ActionTrigger,
  appealDocId,
  batchDocId,
  dayDocId,
  emptyDay,
  itemDocId,
  jobDocId,
  type OpenNotices,
  type StatementFactsDoc,
  statementDocId,
  TRANSPARENCY_APPEALS,
  TRANSPARENCY_BATCHES,
  TRANSPARENCY_DAYS,
  TRANSPARENCY_ITEMS,
  TRANSPARENCY_JOBS,
  TRANSPARENCY_STATEMENTS,
  type TransparencyAppealDoc,
  type TransparencyBatchDoc,
  type TransparencyDayDoc,
  type TransparencyItemDoc,
  type TransparencyJobDoc,
} from './transparency.read-model.js';

export const TRANSPARENCY_PROJECTION = 'transparency';

type Data = { readonly [key: string]: unknown };
const record = (value: unknown): Data => (typeof value === 'object' && value !== null ? (value as Data) : {});
const text = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);
/** A system time (an event's `occurredAt`) in UTC. */
const utc = (at: string) => new Date(at).toISOString();
/** The customer's datetime in UTC, the event's time when it has none (utcIsoOf: `Date` throws on forms the API accepts). */
const customerUtc = (at: unknown, event: RecordedEvent) => utcIsoOf(at, event.metadata.occurredAt);

/**
 * The statement's PUID: unique per published action within the organization (the Database asks
 * for one per statement, of [a-zA-Z0-9-_] only), derived from its delivery id so a rebuild finds
 * the same, and opaque (an item id can be a user's name).
 */
export const statementPuid = (orgId: string, deliveryId: string): string =>
  `warden-${createHash('sha256').update(`${orgId}\u0000${deliveryId}`).digest('hex').slice(0, 40)}`;

async function item(ctx: ProjectionContext, orgId: string, typeId: string, itemId: string): Promise<{ id: string; doc: TransparencyItemDoc }> {
  const id = itemDocId(orgId, typeId, itemId);
  return { id, doc: (await ctx.get<TransparencyItemDoc>(TRANSPARENCY_ITEMS, id)) ?? { orgId, firstSeenAt: null, notices: null } };
}

async function day(ctx: ProjectionContext, orgId: string, at: string): Promise<{ id: string; doc: TransparencyDayDoc }> {
  const d = utc(at).slice(0, 10);
  const id = dayDocId(orgId, d);
  return { id, doc: (await ctx.get<TransparencyDayDoc>(TRANSPARENCY_DAYS, id)) ?? emptyDay(orgId, d) };
}

const bump = (counts: { [key: string]: number }, key: string) => (counts[key] = (counts[key] ?? 0) + 1);

async function onItemSubmitted(event: RecordedEvent, ctx: ProjectionContext): Promise<void> {
  const data = record(event.data);
  const itemId = text(data['itemId']);
  const typeId = text(data['typeId']);
  if (!itemId || !typeId) return;
  const found = await item(ctx, event.metadata.orgId, typeId, itemId);
  if (found.doc.firstSeenAt !== null) return;
  ctx.put(TRANSPARENCY_ITEMS, found.id, { ...found.doc, firstSeenAt: utc(event.metadata.occurredAt) } as unknown as ReadDocument);
}

async function onReport(event: RecordedEvent, ctx: ProjectionContext): Promise<void> {
  const data = record(event.data);
  const reported = record(data['reportedItem']);
  const itemId = text(reported['id']);
  const typeId = text(reported['typeId']);
  if (!itemId || !typeId) return;
  const orgId = event.metadata.orgId;
  const reporterType = text(record(data['reporter'])['typeId']) ?? '';
  const at = customerUtc(data['reportedAt'], event);
  const found = await item(ctx, orgId, typeId, itemId);
  const open = found.doc.notices;
  const notices: OpenNotices = open
    ? { firstAt: open.firstAt, reporterTypes: [...new Set([...open.reporterTypes, reporterType])].sort() }
    : { firstAt: at, reporterTypes: [reporterType] };
  ctx.put(TRANSPARENCY_ITEMS, found.id, { ...found.doc, notices } as unknown as ReadDocument);
  const counters = await day(ctx, orgId, at);
  bump(counters.doc.noticesByPolicy, text(data['policyId']) ?? '');
  bump(counters.doc.noticesByReporterType, reporterType);
  ctx.put(TRANSPARENCY_DAYS, counters.id, counters.doc as unknown as ReadDocument);
}

const TRIGGERS: ReadonlySet<string> = new Set(['rule', 'decision', 'strike-threshold', 'post-actions']);

/**
 * One published action: its statement's facts, and the day's counters. The item's open notices
 * are what it answers (the source); they are closed by it.
 */
async function onAction(event: RecordedEvent, ctx: ProjectionContext): Promise<void> {
  const data = record(event.data);
  const deliveryId = text(data['deliveryId']);
  const target = record(data['item']);
  const itemId = text(target['id']);
  const typeId = text(target['typeId']);
  const actionId = text(record(data['action'])['id']);
  if (!deliveryId || !itemId || !typeId || !actionId) return;
  const orgId = event.metadata.orgId;
  const id = statementDocId(orgId, deliveryId);
  const stored = await ctx.get<StatementFactsDoc>(TRANSPARENCY_STATEMENTS, id);
  if (stored !== undefined && (await ctx.writtenBefore(TRANSPARENCY_STATEMENTS, id))) return;
  const found = await item(ctx, orgId, typeId, itemId);
  // A redelivery whose statement was stored (a commit that landed part of the batch's writes)
  // counts with the facts it recorded: this very event may have closed the item's notices since.
  const facts = stored ?? (await newFacts(event, ctx, { orgId, deliveryId, itemId, typeId, actionId }, found.doc));
  const { notice, decidedAt } = facts;
  ctx.put(TRANSPARENCY_STATEMENTS, id, facts as unknown as ReadDocument);
  if (notice) ctx.put(TRANSPARENCY_ITEMS, found.id, { ...found.doc, notices: null } as unknown as ReadDocument);

  const counters = await day(ctx, orgId, decidedAt);
  const source = notice ? notice.reporterTypes.join(',') || '*' : '';
  const key = JSON.stringify([actionId, facts.policyIds.join(','), source, facts.automatedDetection ? 1 : 0, facts.automatedDecision ? 1 : 0]);
  if (key in counters.doc.actions || (Object.keys(counters.doc.actions).length < DAY_ACTION_KEYS && key.length <= DAY_ACTION_KEY_LENGTH)) {
    bump(counters.doc.actions, key);
  } else {
    await bumpApart(ctx, counters.doc, key);
  }
  if (notice) bump(counters.doc.noticeToAction, String(durationBucket(Date.parse(decidedAt) - Date.parse(notice.firstAt))));
  ctx.put(TRANSPARENCY_DAYS, counters.id, counters.doc as unknown as ReadDocument);
}

/**
 * A day's document keeps at most this many kinds of action (action, policies, source, automation)
 * and none longer than DAY_ACTION_KEY_LENGTH; the others count in a document of their own for the
 * day (bumpApart). An action may name up to a thousand policies of 256 characters: a few dozen
 * such sets in a day made one document of 16 MB (MongoDB's limit, past which the projection would
 * stall on the event), and every action of the day rewrote all of it (a review's reading).
 */
const DAY_ACTION_KEYS = 256;
const DAY_ACTION_KEY_LENGTH = 1024;

/** Counts `key` in the day's document of its own, found by its digest (a day document as any other: the report sums them all). */
async function bumpApart(ctx: ProjectionContext, dayDoc: TransparencyDayDoc, key: string): Promise<void> {
  const id = `${dayDocId(dayDoc.orgId, dayDoc.day)}#${createHash('sha256').update(key).digest('base64url')}`;
  const apart = (await ctx.get<TransparencyDayDoc>(TRANSPARENCY_DAYS, id)) ?? emptyDay(dayDoc.orgId, dayDoc.day);
  bump(apart.actions, key);
  ctx.put(TRANSPARENCY_DAYS, id, apart as unknown as ReadDocument);
}

/** The facts of a published action's statement, as its event and the item's record say them now. */
async function newFacts(
  event: RecordedEvent,
  ctx: ProjectionContext,
  ids: { orgId: string; deliveryId: string; itemId: string; typeId: string; actionId: string },
  item: TransparencyItemDoc,
): Promise<StatementFactsDoc> {
  const data = record(event.data);
  const trigger = (TRIGGERS.has(text(data['trigger']) ?? '') ? data['trigger'] : 'rule') as ActionTrigger;
  const rules = Array.isArray(data['rules']) ? data['rules'] : [];
  const policyIds = (Array.isArray(data['policies']) ? data['policies'] : []).flatMap((p) => {
    const policyId = text(record(p)['id']);
    return policyId ? [policyId] : [];
  });
  const decidedAt = utc(event.metadata.occurredAt);
  const detected = trigger === 'rule' || (trigger === 'decision' && (rules.length > 0 || (await decidedJob(event, ctx))?.ruleDetected === true));
  return {
    orgId: ids.orgId,
    puid: statementPuid(ids.orgId, ids.deliveryId),
    deliveryId: ids.deliveryId,
    trigger,
    item: { id: ids.itemId, typeId: ids.typeId },
    actionId: ids.actionId,
    policyIds,
    decidedAt,
    day: decidedAt.slice(0, 10),
    contentDate: (item.firstSeenAt ?? decidedAt).slice(0, 10),
    notice: item.notices,
    // A rule or hash match found it: the rule's own action, or the rule that sent it to review.
    automatedDetection: detected,
    automatedDecision: trigger === 'rule' || trigger === 'strike-threshold',
    batchId: null,
  };
}

/** The review job a decision's action was published by (the decision's callback is appended to the job's stream). */
async function decidedJob(event: RecordedEvent, ctx: ProjectionContext): Promise<TransparencyJobDoc | undefined> {
  const { category, idParts } = parseStreamName(event.streamName);
  if (category !== 'review_job' || idParts.length < 2) return undefined;
  return ctx.get<TransparencyJobDoc>(TRANSPARENCY_JOBS, jobDocId(event.metadata.orgId, idParts[1]!));
}

/** A request a rule made (ENQUEUE_TO_MRT from a rule or hash match that names its rules). */
const ruleRequest = (request: unknown): boolean => {
  const r = record(request);
  const rules = record(r['action'])['rules'];
  return r['source'] === 'RULE_EXECUTION' && Array.isArray(rules) && rules.length > 0;
};
const anyRuleRequest = (data: Data) =>
  ruleRequest(data['request']) ||
  (Array.isArray(data['carried']) && data['carried'].some(ruleRequest)) ||
  // A moved job with many requests is named, not copied: it says whether a rule's request is among them.
  record(data['carriedFrom'])['ruleDetected'] === true;

async function onJobOpened(event: RecordedEvent, ctx: ProjectionContext): Promise<void> {
  const data = record(event.data);
  const jobId = text(data['jobId']);
  const target = record(data['item']);
  const itemId = text(target['id']);
  const typeId = text(target['typeId']);
  if (!jobId || !itemId || !typeId) return;
  const orgId = event.metadata.orgId;
  const doc: TransparencyJobDoc = { orgId, itemTypeId: typeId, itemId, ruleDetected: anyRuleRequest(data) };
  ctx.put(TRANSPARENCY_JOBS, jobDocId(orgId, jobId), doc as unknown as ReadDocument);
}

/** A rule's request merged into a job a report opened: the decision on it was detected by a rule too. */
async function onJobMerged(event: RecordedEvent, ctx: ProjectionContext): Promise<void> {
  const data = record(event.data);
  const jobId = text(data['jobId']);
  if (!jobId || !anyRuleRequest(data)) return;
  const id = jobDocId(event.metadata.orgId, jobId);
  const job = await ctx.get<TransparencyJobDoc>(TRANSPARENCY_JOBS, id);
  if (job && !job.ruleDetected) ctx.put(TRANSPARENCY_JOBS, id, { ...job, ruleDetected: true } as unknown as ReadDocument);
}

/** IGNORE: a moderator looked and took no action; the item's notices are answered all the same. */
async function onJobDecided(event: RecordedEvent, ctx: ProjectionContext): Promise<void> {
  const data = record(event.data);
  const jobId = text(data['jobId']);
  if (!jobId || data['type'] !== 'IGNORE') return;
  const orgId = event.metadata.orgId;
  const job = await ctx.get<TransparencyJobDoc>(TRANSPARENCY_JOBS, jobDocId(orgId, jobId));
  if (!job) return;
  const found = await item(ctx, orgId, job.itemTypeId, job.itemId);
  if (found.doc.notices) ctx.put(TRANSPARENCY_ITEMS, found.id, { ...found.doc, notices: null } as unknown as ReadDocument);
}

async function onAppeal(event: RecordedEvent, ctx: ProjectionContext): Promise<void> {
  const data = record(event.data);
  const appealId = text(data['appealId']);
  if (!appealId) return;
  const orgId = event.metadata.orgId;
  const id = appealDocId(orgId, appealId);
  if (await ctx.writtenBefore(TRANSPARENCY_APPEALS, id)) return;
  const appealedAt = customerUtc(data['appealedAt'], event);
  const doc: TransparencyAppealDoc = { orgId, appealedAt, decided: false };
  ctx.put(TRANSPARENCY_APPEALS, id, doc as unknown as ReadDocument);
  const counters = await day(ctx, orgId, appealedAt);
  counters.doc.appealsReceived += 1;
  ctx.put(TRANSPARENCY_DAYS, counters.id, counters.doc as unknown as ReadDocument);
}

/** Counted once, on the day it was decided, with the time it took (from its submission). */
async function onAppealDecided(event: RecordedEvent, ctx: ProjectionContext): Promise<void> {
  const data = record(event.data);
  const appealId = text(data['appealId']);
  if (!appealId) return;
  const orgId = event.metadata.orgId;
  const id = appealDocId(orgId, appealId);
  const appeal = await ctx.get<TransparencyAppealDoc>(TRANSPARENCY_APPEALS, id);
  // Decided by an earlier event; one this event decided (a redelivery) goes on to its guarded writes.
  if (!appeal || (appeal.decided && (await ctx.writtenBefore(TRANSPARENCY_APPEALS, id)))) return;
  ctx.put(TRANSPARENCY_APPEALS, id, { ...appeal, decided: true } as unknown as ReadDocument);
  const decidedAt = customerUtc(data['decidedAt'], event);
  const counters = await day(ctx, orgId, decidedAt);
  counters.doc.appealsDecided += 1;
  if (data['decision'] === 'ACCEPT') counters.doc.appealsOverturned += 1;
  bump(counters.doc.appealDuration, String(durationBucket(Date.parse(decidedAt) - Date.parse(appeal.appealedAt))));
  ctx.put(TRANSPARENCY_DAYS, counters.id, counters.doc as unknown as ReadDocument);
}

/** The batch's statements are in it (they are not sent again); its state is the batch's document. */
async function onBatchRequested(event: RecordedEvent, ctx: ProjectionContext): Promise<void> {
  const data = record(event.data);
  const batchId = text(data['batchId']);
  const statements = Array.isArray(data['statements']) ? data['statements'].map(record) : [];
  if (!batchId) return;
  const orgId = event.metadata.orgId;
  for (const s of statements) {
    const deliveryId = text(s['deliveryId']);
    if (!deliveryId) continue;
    const id = statementDocId(orgId, deliveryId);
    const facts = await ctx.get<StatementFactsDoc>(TRANSPARENCY_STATEMENTS, id);
    if (facts && !facts.batchId) ctx.put(TRANSPARENCY_STATEMENTS, id, { ...facts, batchId } as unknown as ReadDocument);
  }
  const doc: TransparencyBatchDoc = {
    orgId,
    batchId,
    status: 'pending',
    statements: statements.length,
    attempts: 0,
    lastError: null,
    nextAttemptAt: text(data['nextAttemptAt']) ?? null,
    submittedAt: null,
    alreadyInDatabase: [],
    revision: event.revision,
  };
  ctx.put(TRANSPARENCY_BATCHES, batchDocId(orgId, batchId), doc as unknown as ReadDocument);
}

async function onBatchOutcome(event: RecordedEvent, ctx: ProjectionContext): Promise<void> {
  const data = record(event.data);
  const batchId = text(data['batchId']);
  if (!batchId) return;
  const id = batchDocId(event.metadata.orgId, batchId);
  const batch = await ctx.get<TransparencyBatchDoc>(TRANSPARENCY_BATCHES, id);
  if (!batch) return;
  const known = Array.isArray(data['alreadyInDatabase']) ? data['alreadyInDatabase'].filter((p): p is string => typeof p === 'string') : [];
  const next: TransparencyBatchDoc = {
    ...batch,
    attempts: typeof data['attempt'] === 'number' ? data['attempt'] : batch.attempts,
    alreadyInDatabase: [...new Set([...batch.alreadyInDatabase, ...known])],
    revision: event.revision,
  };
  switch (event.type) {
    case 'StatementBatchAttemptFailed':
      Object.assign(next, { status: 'retrying', lastError: text(data['error']) ?? null, nextAttemptAt: text(data['nextAttemptAt']) ?? null });
      break;
    case 'StatementBatchSubmitted':
      Object.assign(next, { status: 'submitted', nextAttemptAt: null, submittedAt: text(data['submittedAt']) ?? null });
      break;
    case 'StatementBatchRejected':
      Object.assign(next, { status: 'rejected', nextAttemptAt: null, lastError: text(data['error']) ?? batch.lastError });
      break;
    case 'StatementBatchAbandoned':
      Object.assign(next, { status: 'abandoned', nextAttemptAt: null, lastError: text(data['reason']) ?? batch.lastError });
      break;
  }
  ctx.put(TRANSPARENCY_BATCHES, id, next as unknown as ReadDocument);
}

const HANDLERS: { readonly [type: string]: (event: RecordedEvent, ctx: ProjectionContext) => Promise<void> } = {
  ItemSubmitted: onItemSubmitted,
  ReportSubmitted: onReport,
  ActionCallbackRequested: onAction,
  ReviewJobOpened: onJobOpened,
  ReviewJobMerged: onJobMerged,
  ReviewJobDecided: onJobDecided,
  AppealSubmitted: onAppeal,
  AppealDecided: onAppealDecided,
  StatementBatchRequested: onBatchRequested,
  StatementBatchAttemptFailed: onBatchOutcome,
  StatementBatchSubmitted: onBatchOutcome,
  StatementBatchRejected: onBatchOutcome,
  StatementBatchAbandoned: onBatchOutcome,
};

/**
 * The facts of statements of reasons and the transparency report's daily counters. Ids, types,
 * times and counts only: nothing sealed is read, so an erasure leaves every statement valid.
 * Redelivery changes nothing: each document written carries its event's position and the store
 * skips an event for a document that already reflects it; a statement and an appeal are recorded
 * once (their documents exist).
 */
export const transparencyProjection: Projection = {
  name: TRANSPARENCY_PROJECTION,
  collections: [TRANSPARENCY_ITEMS, TRANSPARENCY_STATEMENTS, TRANSPARENCY_APPEALS, TRANSPARENCY_DAYS, TRANSPARENCY_JOBS, TRANSPARENCY_BATCHES],
  eventTypes: Object.keys(HANDLERS),
  needsPersonalData: false,
  ownThread: true,
  indexes: [
    // The statements list: a period's, in decidedAt order, read in index order and stopped at the page.
    { collection: TRANSPARENCY_STATEMENTS, fields: ['orgId', 'decidedAt', 'puid'] },
    // Forming batches: an organization's actions with unsent statements, and each one's, oldest first.
    { collection: TRANSPARENCY_STATEMENTS, fields: ['orgId', 'batchId', 'actionId', 'decidedAt', 'puid'] },
    // The organizations with unsent statements (batchId null), one entry each, at a start.
    { collection: TRANSPARENCY_STATEMENTS, fields: ['batchId', 'orgId'] },
    // An item's statements, newest first: with the item alone, SQLite read the organization's
    // statements in time order by (orgId, decidedAt, puid), filtering for the item (a period's
    // millions for an item with fewer than the page).
    { collection: TRANSPARENCY_STATEMENTS, fields: ['orgId', 'item.typeId', 'item.id', 'decidedAt', 'puid'] },
    { collection: TRANSPARENCY_DAYS, fields: ['orgId', 'day'] },
    { collection: TRANSPARENCY_BATCHES, fields: ['status'] },
  ],
  retiredIndexes: [
    // Forming batches before (orgId, batchId, decidedAt, puid) served it, with its order.
    { collection: TRANSPARENCY_STATEMENTS, fields: ['orgId', 'batchId'] },
    // Before (batchId, orgId), which serves what it served.
    { collection: TRANSPARENCY_STATEMENTS, fields: ['batchId'] },
    // Forming batches before they were formed action by action (orgId, batchId, actionId, decidedAt, puid).
    { collection: TRANSPARENCY_STATEMENTS, fields: ['orgId', 'batchId', 'decidedAt', 'puid'] },
    // No query looks a statement up by its puid (its id is derived from the published action).
    { collection: TRANSPARENCY_STATEMENTS, fields: ['orgId', 'puid'] },
    // The statements list filtered on the day and sorted apart: (orgId, decidedAt, puid) does both.
    { collection: TRANSPARENCY_STATEMENTS, fields: ['orgId', 'day'] },
    // An item's statements, before (orgId, item.typeId, item.id, decidedAt, puid), which begins with it.
    { collection: TRANSPARENCY_STATEMENTS, fields: ['orgId', 'item.typeId', 'item.id'] },
  ],
  async apply(event, ctx) {
    await HANDLERS[event.type]?.(event, ctx);
  },
};
