import { CHILD_SAFETY_QUEUE_ID } from '#warden/catalog/contracts';
import type { Projection, ProjectionContext } from '#warden/eventstore';
import { parseStreamName, type RecordedEvent, streamCategory, userOfSubject } from '#warden/kernel';
import { itemStream, reportStream } from '#warden/ingestion/contracts';
import { reviewJobStream, sendsToChildSafety } from '#warden/review/contracts';

export const ITEM_HISTORY_PROJECTION = 'audit-item-history';
/** One entry per (event, item or user it concerns): where to read the event. Ids only, no personal data. */
export const ITEM_HISTORY = 'audit_item_history';
/** What a stream is about, from its first events: its later events (claims, attempts …) name only the stream's own id. */
export const ITEM_HISTORY_STREAMS = 'audit_item_history_streams';
/**
 * The events of the child-safety queue (see `childSafety` below), by organization and event id
 * (`childSafetyCauseId`): what they cause (a decision's strikes, its callback's delivery …) names
 * them as its `causationId`. Ids only.
 */
export const ITEM_HISTORY_CHILD_SAFETY = 'audit_item_history_child_safety';
export const childSafetyCauseId = (orgId: string, eventId: string) => `${orgId}:${eventId}`;

/** An item, or a user (an item of a USER type): the customer's ids. */
export interface HistoryRef {
  readonly typeId: string;
  readonly id: string;
}

export interface ItemHistoryDoc {
  readonly orgId: string;
  readonly typeId: string;
  readonly itemId: string;
  readonly position: number;
  readonly stream: string;
  readonly revision: number;
  readonly type: string;
  /**
   * True: the event shows a child-safety report, job or decision, or was caused by one (see
   * `childSafetyEvent`): Investigate and the job view leave it out for a viewer without
   * VIEW_CHILD_SAFETY_DATA. Absent on entries of other events, and on entries written before releases
   * of 2026-12-01 (a rebuild of the read models writes them again).
   */
  readonly childSafety?: true;
}

/** What the index records of a stream its first events named: the refs its later events go to, and whether it is a child-safety one. */
export interface ItemHistoryStreamDoc {
  readonly refs: HistoryRef[];
  /** The stream's first event was of the child-safety queue (a job of it, its report, a delivery of its decision): so is every later one. */
  readonly childSafety?: true;
  /**
   * A report's stream: the log position of its ReportSubmitted, so that its entries are marked
   * when a routing rule sends the report to the child-safety queue (its ReportRouted, later). A
   * review job's: its ReviewJobOpened's, so that its entry is marked when a decision sends the job
   * to child-safety. Absent on reports and jobs indexed before releases of 2026-12-01; on an item
   * version a report recorded (`reportedVersionKey`), its ItemSubmitted's.
   */
  readonly position?: number;
}

/**
 * Fields that name an item or a user in events of every module: the item itself, the reported and
 * the appealed item, and the people (creator, reporter, appellant, the struck user).
 */
const REF_FIELDS = ['item', 'reportedItem', 'actionedItem', 'creator', 'reporter', 'appealedBy', 'user'] as const;

/** The items and users an event names by itself. */
export function refsOf(event: RecordedEvent): HistoryRef[] {
  const refs: HistoryRef[] = [];
  const add = (value: unknown) => {
    if (typeof value !== 'object' || value === null) return;
    const { id, typeId } = value as { id?: unknown; typeId?: unknown };
    if (typeof id === 'string' && typeof typeId === 'string' && !refs.some((r) => r.id === id && r.typeId === typeId)) refs.push({ typeId, id });
  };
  const data = event.data as { [key: string]: unknown };
  if (typeof data['itemId'] === 'string' && typeof data['typeId'] === 'string') add({ id: data['itemId'], typeId: data['typeId'] });
  for (const field of REF_FIELDS) add(data[field]);
  // An appeal names its appellant only in sealed fields; the plain subject it is sealed under is the appellant.
  if (event.type === 'AppealSubmitted' && typeof data['subject'] === 'string') add(userOfSubject(data['subject']));
  for (const ref of streamRefs(event.streamName)) add(ref);
  return refs;
}

/**
 * What a stream's name says it is about: an item's versions and their evaluations are named after
 * the item, a user's strikes after the user. Every event of such a stream names that much by
 * where it is, so it needs no record of the stream to be found later.
 */
export function streamRefs(streamName: string): HistoryRef[] {
  const { category, idParts } = parseStreamName(streamName);
  if ((category === 'item' || category === 'user_strikes') && idParts.length === 3) return [{ typeId: idParts[1]!, id: idParts[2]! }];
  if (category === 'item_evaluation' && idParts.length >= 3) return [{ typeId: idParts[1]!, id: idParts[2]! }];
  return [];
}

const sameRef = (a: HistoryRef) => (b: HistoryRef) => a.id === b.id && a.typeId === b.typeId;

/**
 * Streams that gather events about many items, one each (a user's strikes, a rule's day of
 * actions): their events are about what each names, not about what the stream's earlier events
 * named. Carried forward, every event of a flood would be indexed under every item before it.
 */
const GATHERING = new Set(['user_strikes', 'rule_daily_actions']);
/** At most this many refs carried to a stream's later events (a job merged from many reports: the first reporters). */
export const MAX_CARRIED_REFS = 16;

export const historyEntryId = (position: number, ref: HistoryRef) => `${position}:${ref.typeId}:${ref.id}`;

/**
 * Where the index records (in ITEM_HISTORY_STREAMS, beside the streams) an item version a report
 * recorded (an ItemSubmitted of `source: report`): its refs and log position, so that its entries
 * are marked when the report turns out to be flagged `csam` (its ReportSubmitted comes after it).
 */
export const reportedVersionKey = (itemStreamName: string, version: number) => `reported-version:${itemStreamName}@${version}`;

/** The category of review job streams (`review_job-<org>:<job>`). */
const REVIEW_JOB_CATEGORY = streamCategory(reviewJobStream('org', 'job'));
/**
 * Streams only the customer's submissions and the rules engine write (an item's versions, its
 * evaluations and the rules' actions, its media): nothing a review job decides is recorded there,
 * so their events' causes are not looked up.
 */
const NEVER_CAUSED_BY_REVIEW = new Set(['item', 'item_evaluation', 'item_media', 'rule_daily_actions']);

/**
 * An event that shows a child-safety report or job by itself (docs/console.md, "Investigate"): a
 * report flagged `csam`, a report routed or a request sent to the `child-safety` queue, a job
 * opened there, a child-safety report, a decision on a job of any queue that submits a child-safety
 * report or moves the job there. The job's later events and what they cause are found by the index
 * (`childSafety` on their entries), and so are the actions a decision requested beside it and a
 * plain report a routing rule sent to the queue.
 */
export function childSafetyEvent(event: Pick<RecordedEvent, 'type' | 'data'>): boolean {
  return (
    event.type === 'ChildSafetyReportRecorded' ||
    (event.type === 'ReportSubmitted' && event.data['csam'] === true) ||
    event.data['queueId'] === CHILD_SAFETY_QUEUE_ID ||
    // A decision on a job of any queue that sends a child-safety report, or moves the job into that queue.
    (event.type === 'ReviewJobDecided' && sendsToChildSafety(event.data))
  );
}

/** Where the index records a delivery requested by a child-safety decision (its ActionCallbackRequested shares the decision's append). */
const childSafetyDeliveryKey = (orgId: string, deliveryId: string) => childSafetyCauseId(orgId, `delivery:${deliveryId}`);

/**
 * The index behind an item's and a user's history (GET /api/console/v1/items|users/{typeId}/{id}/history):
 * every event that names an item or a user, by the ids it names, plus the later events of a
 * stream that named one (a review job's claims and decisions, a delivery's attempts). Entries are
 * keyed by log position, so a redelivered event writes the same entries again.
 */
export const itemHistoryProjection: Projection = {
  name: ITEM_HISTORY_PROJECTION,
  collections: [ITEM_HISTORY, ITEM_HISTORY_STREAMS, ITEM_HISTORY_CHILD_SAFETY],
  eventTypes: [],
  everyEvent: true,
  needsPersonalData: false,
  ownThread: true,
  // The audit trail may fall behind during a burst: queues, actions and callbacks go first.
  background: true,
  indexes: [
    { collection: ITEM_HISTORY, fields: ['orgId', 'typeId', 'itemId', 'position'] },
    // An item's or a user's events of one type, newest first (the actions published on them).
    { collection: ITEM_HISTORY, fields: ['orgId', 'typeId', 'itemId', 'type', 'position'] },
    // The same two for a viewer without VIEW_CHILD_SAFETY_DATA (Investigate asks for entries without
    // the child-safety mark, `childSafety: null`): without them the newest unmarked entry of an item
    // reported 100,000 times with `csam: true` was found by walking every marked one (81 ms at
    // 100,000 entries, 0.55 s at a million, synchronous on SQLite), several times per page.
    { collection: ITEM_HISTORY, fields: ['orgId', 'typeId', 'itemId', 'childSafety', 'position'] },
    { collection: ITEM_HISTORY, fields: ['orgId', 'typeId', 'itemId', 'type', 'childSafety', 'position'] },
  ],
  async apply(event, ctx) {
    await indexEvent(event, ctx);
  },
};

async function indexEvent(event: RecordedEvent, ctx: ProjectionContext): Promise<void> {
  const orgId = event.metadata.orgId;
  const own = refsOf(event);
  const category = parseStreamName(event.streamName).category;
  const carries = !GATHERING.has(category);
  // A stream's first event has nothing recorded before it: no read (most events open a stream).
  const known = event.revision === 0 || !carries ? undefined : await ctx.get<ItemHistoryStreamDoc>(ITEM_HISTORY_STREAMS, event.streamName);
  const childSafety = await isChildSafety(event, category, known, ctx);
  // Recorded for what it causes (a decision's action → the strikes, the delivery, a threshold's action …).
  if (childSafety) ctx.put(ITEM_HISTORY_CHILD_SAFETY, childSafetyCauseId(orgId, event.id), { orgId } as never);
  // A child-safety decision's actions are requested beside it on the job's stream, which may be another queue's.
  if (childSafety && event.type === 'ReviewJobDecided' && Array.isArray(event.data['deliveryIds']))
    for (const id of event.data['deliveryIds'])
      if (typeof id === 'string') ctx.put(ITEM_HISTORY_CHILD_SAFETY, childSafetyDeliveryKey(orgId, id), { orgId } as never);
  const carried = [...(known?.refs ?? [])];
  const refs = [...carried];
  for (const ref of own) if (!refs.some(sameRef(ref))) refs.push(ref);
  if (refs.length === 0) return;
  // Recorded only when the event adds something that the stream's name does not already say, and while there is room;
  // and when a stream opens with a child-safety event, so that its later events are too (a job's claims, a delivery's attempts).
  const implied = streamRefs(event.streamName);
  const adds = carries && carried.length < MAX_CARRIED_REFS && own.some((ref) => !carried.some(sameRef(ref)));
  const opensChildSafety = childSafety && carries && event.revision === 0;
  if ((adds && refs.some((ref) => !implied.some(sameRef(ref)))) || opensChildSafety) {
    const doc: ItemHistoryStreamDoc = {
      refs: refs.slice(0, MAX_CARRIED_REFS),
      ...(childSafety ? { childSafety: true } : {}),
      ...((event.type === 'ReportSubmitted' || event.type === 'ReviewJobOpened') && event.revision === 0 ? { position: event.position } : {}),
    };
    ctx.put(ITEM_HISTORY_STREAMS, event.streamName, doc as never);
  }
  if (childSafety && event.type === 'ReportRouted' && typeof event.data['reportId'] === 'string') await markRoutedReport(orgId, event.data['reportId'], ctx);
  // A job of another queue that a decision sent to child-safety (a child-safety report, a move there) is that queue's from then on.
  // Marked by an earlier event; one this event marked (a redelivery after a partial commit) marks its opening again, guarded.
  if (
    childSafety &&
    event.type === 'ReviewJobDecided' &&
    category === REVIEW_JOB_CATEGORY &&
    known &&
    !(known.childSafety === true && (await ctx.writtenBefore(ITEM_HISTORY_STREAMS, event.streamName)))
  )
    markSentJob(orgId, event.streamName, known, ctx);
  // The version a report recorded, for its csam mark (one small write per report: what it reported).
  if (event.type === 'ItemSubmitted' && event.data['source'] === 'report' && category === 'item')
    ctx.put(ITEM_HISTORY_STREAMS, reportedVersionKey(event.streamName, event.revision), { refs, position: event.position } as never);
  if (event.type === 'ReportSubmitted' && event.data['csam'] === true) await markReportedVersion(orgId, event.data['reportedItem'], ctx);
  for (const ref of refs)
    putEntry(ctx, ref, { orgId, position: event.position, stream: event.streamName, revision: event.revision, type: event.type }, childSafety);
}

/** The entry of one event under one item or user it concerns, keyed by position: a rewrite replaces it. */
function putEntry(
  ctx: ProjectionContext,
  ref: HistoryRef,
  at: Pick<ItemHistoryDoc, 'orgId' | 'position' | 'stream' | 'revision' | 'type'>,
  childSafety: boolean,
): void {
  const doc: ItemHistoryDoc = { ...at, typeId: ref.typeId, itemId: ref.id, ...(childSafety ? { childSafety: true } : {}) };
  ctx.put(ITEM_HISTORY, historyEntryId(at.position, ref), doc as never);
}

/**
 * Whether the event is of the child-safety queue: by itself (`childSafetyEvent`), as a later
 * event of a stream that opened with one (a job's claims and decisions, a delivery's attempts),
 * or caused by one (its `causationId` an event recorded as such: a decision's strikes, its
 * callback's delivery, a threshold's action they crossed …). A review job's stream is the job's
 * alone: a job of another queue closed because a child-safety decision actioned the item, or
 * opened by a threshold such a decision crossed, is that queue's.
 */
async function isChildSafety(event: RecordedEvent, category: string, stream: ItemHistoryStreamDoc | undefined, ctx: ProjectionContext): Promise<boolean> {
  if (stream?.childSafety === true || childSafetyEvent(event)) return true;
  if (event.type === 'ActionCallbackRequested' && category === REVIEW_JOB_CATEGORY && typeof event.data['deliveryId'] === 'string')
    return (await ctx.get(ITEM_HISTORY_CHILD_SAFETY, childSafetyDeliveryKey(event.metadata.orgId, event.data['deliveryId']))) !== undefined;
  const cause = event.metadata.causationId;
  if (!cause || category === REVIEW_JOB_CATEGORY || NEVER_CAUSED_BY_REVIEW.has(category)) return false;
  return (await ctx.get(ITEM_HISTORY_CHILD_SAFETY, childSafetyCauseId(event.metadata.orgId, cause))) !== undefined;
}

/**
 * A report routed to the child-safety queue by a routing rule (not flagged `csam`): its
 * ReportSubmitted was indexed unmarked before its route was known, so its entries are written
 * again marked, where the report's stream record says it is (one read by key per such route).
 */
async function markRoutedReport(orgId: string, reportId: string, ctx: ProjectionContext): Promise<void> {
  const name = reportStream(orgId, reportId);
  const report = await ctx.get<ItemHistoryStreamDoc>(ITEM_HISTORY_STREAMS, name);
  if (!report || report.position === undefined) return;
  // Marked by an earlier event; one this event marked (a redelivery) writes its entries again, each guarded.
  if (report.childSafety === true && (await ctx.writtenBefore(ITEM_HISTORY_STREAMS, name))) return;
  ctx.put(ITEM_HISTORY_STREAMS, name, { ...report, childSafety: true } as never);
  for (const ref of report.refs) putEntry(ctx, ref, { orgId, position: report.position, stream: name, revision: 0, type: 'ReportSubmitted' }, true);
}

/**
 * A job of another queue whose decision sent it to child-safety (SUBMIT_CHILD_SAFETY_REPORT, or
 * moved there): its stream's record is marked, so that its later events are, and so is the entry
 * of its opening, where the record says it is (the job is left out as a whole without
 * VIEW_CHILD_SAFETY_DATA; its claims are left out by the record when read).
 */
function markSentJob(orgId: string, stream: string, known: ItemHistoryStreamDoc, ctx: ProjectionContext): void {
  ctx.put(ITEM_HISTORY_STREAMS, stream, { ...known, childSafety: true } as never);
  if (known.position === undefined) return;
  for (const ref of known.refs) putEntry(ctx, ref, { orgId, position: known.position, stream, revision: 0, type: 'ReviewJobOpened' }, true);
}

/**
 * The item version a report flagged `csam` recorded (the reported content, its ItemSubmitted
 * written just before the report): its entries are written again marked, so that it shows only
 * with VIEW_CHILD_SAFETY_DATA, and an item or a creator known by it alone is not found without it
 * (docs/console.md, "Investigate"). One read by key per such report.
 */
async function markReportedVersion(orgId: string, reported: unknown, ctx: ProjectionContext): Promise<void> {
  const { id, typeId, version } = (reported ?? {}) as { id?: unknown; typeId?: unknown; version?: unknown };
  if (typeof id !== 'string' || typeof typeId !== 'string' || typeof version !== 'number') return;
  const stream = itemStream(orgId, typeId, id);
  const recorded = await ctx.get<ItemHistoryStreamDoc>(ITEM_HISTORY_STREAMS, reportedVersionKey(stream, version));
  if (!recorded || recorded.position === undefined) return;
  for (const ref of recorded.refs) putEntry(ctx, ref, { orgId, position: recorded.position, stream, revision: version, type: 'ItemSubmitted' }, true);
}
