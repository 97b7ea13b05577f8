import type { Projection, ProjectionContext } from '#warden/eventstore';
import { parseStreamName, type RecordedEvent, userOfSubject } from '#warden/kernel';

export const ITEM_HISTORY_PROJECTION = 'audit-item-history';
/** One entry per (event, item or user it concerns): where to read the event. Ids only, no personal data. */
export const ITEM_HISTORY = 'audit_item_history';
/** What a stream is about, from its first events: its later events (claims, attempts …) name only the stream's own id. */
export const ITEM_HISTORY_STREAMS = 'audit_item_history_streams';

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
 * The index behind an item's and a user's history (GET /api/console/v1/items|users/{typeId}/{id}/history):
 * every event that names an item or a user, by the ids it names, plus the later events of a
 * stream that named one (a review job's claims and decisions, a delivery's attempts). Entries are
 * keyed by log position, so a redelivered event writes the same entries again.
 */
export const itemHistoryProjection: Projection = {
  name: ITEM_HISTORY_PROJECTION,
  collections: [ITEM_HISTORY, ITEM_HISTORY_STREAMS],
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
  ],
  async apply(event, ctx) {
    await indexEvent(event, ctx);
  },
};

async function indexEvent(event: RecordedEvent, ctx: ProjectionContext): Promise<void> {
  const orgId = event.metadata.orgId;
  const own = refsOf(event);
  const carries = !GATHERING.has(parseStreamName(event.streamName).category);
  // A stream's first event has nothing recorded before it: no read (most events open a stream).
  const known = event.revision === 0 || !carries ? undefined : await ctx.get<{ refs: HistoryRef[] }>(ITEM_HISTORY_STREAMS, event.streamName);
  const carried = [...(known?.refs ?? [])];
  const refs = [...carried];
  for (const ref of own) if (!refs.some(sameRef(ref))) refs.push(ref);
  if (refs.length === 0) return;
  // Recorded only when the event adds something that the stream's name does not already say, and while there is room.
  const implied = streamRefs(event.streamName);
  const adds = carries && carried.length < MAX_CARRIED_REFS && own.some((ref) => !carried.some(sameRef(ref)));
  if (adds && refs.some((ref) => !implied.some(sameRef(ref))))
    ctx.put(ITEM_HISTORY_STREAMS, event.streamName, { refs: refs.slice(0, MAX_CARRIED_REFS) as never });
  for (const ref of refs) {
    const doc: ItemHistoryDoc = {
      orgId,
      typeId: ref.typeId,
      itemId: ref.id,
      position: event.position,
      stream: event.streamName,
      revision: event.revision,
      type: event.type,
    };
    ctx.put(ITEM_HISTORY, historyEntryId(event.position, ref), doc as never);
  }
}
