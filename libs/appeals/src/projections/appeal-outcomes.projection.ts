import type { ActionCallbackRequested } from '#warden/callbacks/contracts';
import { utcIsoOf } from '#warden/catalog/contracts';
import { eventProjection, type ProjectionContext } from '#warden/eventstore';
import type { RecordedOf } from '#warden/kernel';
import type { ReadDocument } from '#warden/readstore';
import type { AppealDecided, AppealSubmitted } from '../domain/appeal.events.js';
import {
  APPEAL_ACTIONED_ACTIONS,
  APPEAL_OUTCOME_BUCKETS,
  APPEAL_OUTCOME_DAYS,
  APPEAL_OUTCOMES,
  type AppealActionedDoc,
  type AppealOutcomeBucketDoc,
  type AppealOutcomeDayDoc,
  type AppealOutcomeDoc,
  BUCKET_UNITS,
  bucketStart,
  type OutcomeCounts,
  type OutcomeEntry,
  actionedDocId,
  outcomeBucketDocId,
  outcomeDayDocId,
  outcomeDocId,
} from './appeal-outcomes.read-model.js';

/**
 * v2: with the buckets below the day (appeal-outcomes.read-model.ts). A new name and new
 * collections, so that the first start of a release with it builds them from the log (the
 * `appeal-outcomes` checkpoint and collections are v1's, no longer read).
 */
export const APPEAL_OUTCOMES_PROJECTION = 'appeal-outcomes-v2';

type Named = { id: string; name: string };

export const MODERATORS_ENTRY: OutcomeEntry = { dimension: 'moderators', id: '', name: 'Decided by moderators' };
export const UNATTRIBUTED_ENTRY: OutcomeEntry = { dimension: 'unattributed', id: '', name: 'No rule, policy or decision' };
const TOTAL_ENTRY = { dimension: 'total', id: '', name: 'All appeals' } as const;
const ZERO: OutcomeCounts = { received: 0, decided: 0, accepted: 0, rejected: 0 };

const mergeNamed = (into: readonly Named[], more: readonly Named[] | undefined): Named[] => {
  const merged = new Map(into.map((n) => [n.id, n.name]));
  // The latest callback's name wins: a renamed rule shows under its current name.
  for (const n of more ?? []) merged.set(n.id, n.name);
  return [...merged].map(([id, name]) => ({ id, name }));
};

/**
 * The UTC day of the customer's ISO 8601 datetime, and the datetime normalized to UTC; the
 * event's own time if the value is not one (utcIsoOf: `Date` would throw on forms the API accepts).
 */
export function utcDayOf(at: string, occurredAt: string): { at: string; day: string } {
  const iso = utcIsoOf(at, occurredAt);
  return { at: iso, day: iso.slice(0, 10) };
}

/** What an appeal of these actioned actions counts for (see OutcomeDimension). */
export function entriesOf(actioned: ReadonlyArray<AppealActionedDoc | undefined>): OutcomeEntry[] {
  const entries = new Map<string, OutcomeEntry>();
  for (const doc of actioned) {
    if (!doc) continue;
    for (const r of doc.rules) entries.set(`rule:${r.id}`, { dimension: 'rule', id: r.id, name: r.name });
    for (const p of doc.policies) entries.set(`policy:${p.id}`, { dimension: 'policy', id: p.id, name: p.name });
    if (doc.decided) entries.set('moderators', MODERATORS_ENTRY);
  }
  return entries.size > 0 ? [...entries.values()] : [UNATTRIBUTED_ENTRY];
}

async function recordAction(event: RecordedOf<ActionCallbackRequested>, ctx: ProjectionContext): Promise<void> {
  const { data } = event;
  if (!data.item || !data.action) return;
  const orgId = event.metadata.orgId;
  const id = actionedDocId(orgId, data.item, data.action.id);
  const previous = await ctx.get<AppealActionedDoc>(APPEAL_ACTIONED_ACTIONS, id);
  const doc: AppealActionedDoc = {
    orgId,
    itemTypeId: data.item.typeId,
    itemId: data.item.id,
    actionId: data.action.id,
    rules: mergeNamed(previous?.rules ?? [], data.rules),
    policies: mergeNamed(previous?.policies ?? [], data.policies),
    decided:
      (previous?.decided ?? false) ||
      data.trigger === 'decision' ||
      data.trigger === 'post-actions' ||
      ('actorEmail' in data && typeof data.actorEmail === 'string'),
  };
  ctx.put(APPEAL_ACTIONED_ACTIONS, id, doc as unknown as ReadDocument);
}

/**
 * Changes the counts of each entry, and the total, of the appeal's day and of each of its buckets
 * (the hour, minute, second, 10 ms and millisecond of its appealedAt). Every document is read and
 * written through the unit of work, so each write carries the event's position: an event a
 * document already reflects leaves it alone (ReadStore's contract).
 */
async function bump(ctx: ProjectionContext, outcome: AppealOutcomeDoc, change: (counts: OutcomeCounts) => void): Promise<void> {
  await bumpDay(ctx, outcome.orgId, outcome.day, outcome.entries, change);
  await bumpBuckets(ctx, outcome, change);
}

async function bumpDay(
  ctx: ProjectionContext,
  orgId: string,
  day: string,
  entries: readonly OutcomeEntry[],
  change: (doc: OutcomeCounts) => void,
): Promise<void> {
  for (const entry of [...entries, TOTAL_ENTRY]) {
    const id = outcomeDayDocId(orgId, day, entry);
    const doc: AppealOutcomeDayDoc = (await ctx.get<AppealOutcomeDayDoc>(APPEAL_OUTCOME_DAYS, id)) ?? {
      orgId,
      day,
      ...entry,
      received: 0,
      decided: 0,
      accepted: 0,
      rejected: 0,
    };
    const next = { ...doc, name: entry.name };
    change(next);
    ctx.put(APPEAL_OUTCOME_DAYS, id, next as unknown as ReadDocument);
  }
}

async function bumpBuckets(ctx: ProjectionContext, outcome: AppealOutcomeDoc, change: (counts: OutcomeCounts) => void): Promise<void> {
  const { orgId } = outcome;
  const at = Date.parse(outcome.appealedAt);
  for (const { unit, ms } of BUCKET_UNITS) {
    const start = new Date(bucketStart(at, ms)).toISOString();
    const id = outcomeBucketDocId(orgId, unit, start);
    // A document read is the unit of work's own copy (or freshly parsed): changed in place.
    const doc = (await ctx.get<AppealOutcomeBucketDoc>(APPEAL_OUTCOME_BUCKETS, id)) ?? { orgId, unit, start, total: { ...ZERO }, entries: [] };
    change(doc.total);
    for (const entry of outcome.entries) {
      let counted = doc.entries.find((e) => e.dimension === entry.dimension && e.id === entry.id);
      if (!counted) {
        counted = { ...entry, ...ZERO };
        doc.entries.push(counted);
      }
      counted.name = entry.name;
      change(counted);
    }
    ctx.put(APPEAL_OUTCOME_BUCKETS, id, doc as unknown as ReadDocument);
  }
}

/**
 * The appeal is charged to what Warden had sent under its actions when it arrived: this
 * projection's own record of the item's action callbacks, which it builds from the same log in
 * the same order, so a rebuild charges every appeal exactly as the first run did.
 */
async function recordAppeal(event: RecordedOf<AppealSubmitted>, ctx: ProjectionContext): Promise<void> {
  const { data } = event;
  const orgId = event.metadata.orgId;
  const id = outcomeDocId(orgId, data.appealId);
  const stored = await ctx.get<AppealOutcomeDoc>(APPEAL_OUTCOMES, id);
  if (stored !== undefined && (await ctx.writtenBefore(APPEAL_OUTCOMES, id))) return;
  // A redelivery whose outcome was stored (a commit that landed part of the batch's writes) counts
  // it where it was charged: later callbacks of the item may have changed the actioned records since.
  const doc = stored ?? (await newOutcome(event, ctx));
  ctx.put(APPEAL_OUTCOMES, id, doc as unknown as ReadDocument);
  await bump(ctx, doc, (d) => (d.received += 1));
}

async function newOutcome(event: RecordedOf<AppealSubmitted>, ctx: ProjectionContext): Promise<AppealOutcomeDoc> {
  const { data } = event;
  const orgId = event.metadata.orgId;
  const actioned = await Promise.all(
    data.actionsTaken.map((a) => ctx.get<AppealActionedDoc>(APPEAL_ACTIONED_ACTIONS, actionedDocId(orgId, data.actionedItem, a))),
  );
  const { at, day } = utcDayOf(data.appealedAt, event.metadata.occurredAt);
  return { orgId, appealId: data.appealId, appealedAt: at, day, entries: entriesOf(actioned), decision: null };
}

async function recordDecision(event: RecordedOf<AppealDecided>, ctx: ProjectionContext): Promise<void> {
  const { data } = event;
  const orgId = event.metadata.orgId;
  const id = outcomeDocId(orgId, data.appealId);
  const outcome = await ctx.get<AppealOutcomeDoc>(APPEAL_OUTCOMES, id);
  if (!outcome || (outcome.decision !== null && (await ctx.writtenBefore(APPEAL_OUTCOMES, id)))) return;
  ctx.put(APPEAL_OUTCOMES, id, { ...outcome, decision: data.decision } as unknown as ReadDocument);
  await bump(ctx, outcome, (d) => {
    d.decided += 1;
    if (data.decision === 'ACCEPT') d.accepted += 1;
    else d.rejected += 1;
  });
}

/**
 * Appeal outcomes per rule and policy, per UTC day and per bucket below it (hour to millisecond).
 * Redelivery changes nothing: every document written carries its event's position, and the store
 * skips an event for a document that already reflects it; an appeal is counted once (its outcome
 * document exists), decided once, in its day and in each of its buckets alike.
 */
export const appealOutcomesProjection = eventProjection<ActionCallbackRequested | AppealSubmitted | AppealDecided>({
  name: APPEAL_OUTCOMES_PROJECTION,
  collections: [APPEAL_ACTIONED_ACTIONS, APPEAL_OUTCOMES, APPEAL_OUTCOME_DAYS, APPEAL_OUTCOME_BUCKETS],
  eventTypes: ['ActionCallbackRequested', 'AppealSubmitted', 'AppealDecided'],
  // Ids, names and days only: nothing sealed is read.
  needsPersonalData: false,
  ownThread: true,
  // A whole day's documents; a partial day's buckets, a run of one unit by start (bucketRanges).
  indexes: [
    { collection: APPEAL_OUTCOME_DAYS, fields: ['orgId', 'day'] },
    { collection: APPEAL_OUTCOME_BUCKETS, fields: ['orgId', 'unit', 'start'] },
  ],
  async apply(event, ctx) {
    if (event.type === 'ActionCallbackRequested') return recordAction(event, ctx);
    if (event.type === 'AppealSubmitted') return recordAppeal(event, ctx);
    if (event.type === 'AppealDecided') return recordDecision(event, ctx);
  },
});
