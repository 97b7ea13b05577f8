import { eventProjection, type ProjectionContext } from '#warden/eventstore';
import type { ItemSubmitted } from '#warden/ingestion';
import type { RecordedOf } from '#warden/kernel';
import type { ReadDocument } from '#warden/readstore';
import type { ActionCallbackRequested } from '#warden/callbacks/contracts';
import { type ItemActions, type UserRef, withAction, withItemChange, withoutAction } from '../domain/user-score.js';
import type { UserActionsReversed } from '../domain/user-strikes.events.js';
import { publicationKey } from '../strikes/publication-key.js';
import { USER_SCORE_EVENT_TYPES } from '../domain/user-score.events.js';
import {
  USER_SCORE_FETCHED_ITEMS,
  USER_SCORE_ITEMS,
  USER_SCORES,
  USER_SCORES_PROJECTION,
  type UserScoreDoc,
  userScoreDocId,
  type UserScoreFetchedItemDoc,
  userScoreFetchedItemDocId,
  type UserScoreItemDoc,
  userScoreItemDocId,
} from './user-scores.read-model.js';

/**
 * Per user: the items they created and their actioned items counted by what was done to them, for
 * GET /api/v1/user_scores and the USER_SCORE signal; per actioned item, its actions. The score
 * itself is computed when read, with the configuration then in force. An event costs two small
 * documents whatever the user's history. Idempotent by construction: each document is written at
 * the position of the event that changed it, so a redelivered event is skipped for it (ReadStore
 * contract), and an item's actions are a set besides.
 */
export const userScoresProjection = eventProjection<ItemSubmitted | ActionCallbackRequested | UserActionsReversed>({
  name: USER_SCORES_PROJECTION,
  collections: [USER_SCORES, USER_SCORE_ITEMS, USER_SCORE_FETCHED_ITEMS],
  eventTypes: USER_SCORE_EVENT_TYPES,
  // Only ids and penalties are read: item data and report texts stay sealed.
  needsPersonalData: false,
  ownThread: true,
  async apply(recorded, ctx) {
    const orgId = recorded.metadata.orgId;
    if (recorded.type === 'ItemSubmitted') {
      await countSubmission(ctx, orgId, recorded);
      return;
    }
    if (recorded.type === 'UserActionsReversed') {
      const { user, item, actionIds } = recorded.data;
      await updateItem(ctx, orgId, user, item, (actions) => actionIds.reduce((left, actionId) => withoutAction(left, actionId), actions));
      return;
    }
    const { data } = recorded;
    // A strike threshold's action follows from actions already counted: counting it too would punish twice.
    if (!data.creator || data.trigger === 'strike-threshold') return;
    const action = { actionId: data.action.id, policyPenalties: data.policies.map((p) => p.penalty), keys: [publicationKey(recorded)] };
    await updateItem(ctx, orgId, data.creator, { id: data.item.id, typeId: data.item.typeId }, (actions) => withAction(actions, action));
  },
});

/**
 * An item is one submission however many versions it gets, counted at its first submitted version;
 * a USER item is its own creator. A version fetched from the customer (source `partial-fetch`,
 * docs/partial-items.md) is the same item as the platform holds it, not a submission: an item
 * first known from a fetch (a related item Warden never received) is remembered, and counted once
 * the platform submits it. A later version costs one point read (was the item fetched first?),
 * whatever the user's history.
 */
async function countSubmission(ctx: ProjectionContext, orgId: string, recorded: RecordedOf<ItemSubmitted>): Promise<void> {
  const { data } = recorded;
  const item = { id: data.itemId, typeId: data.typeId };
  if (data.source === 'partial-fetch') {
    if (recorded.revision === 0)
      ctx.put(USER_SCORE_FETCHED_ITEMS, userScoreFetchedItemDocId(orgId, item), { orgId, item } satisfies UserScoreFetchedItemDoc as unknown as ReadDocument);
    return;
  }
  if (recorded.revision !== 0) {
    const fetchedFirst = userScoreFetchedItemDocId(orgId, item);
    if ((await ctx.get<UserScoreFetchedItemDoc>(USER_SCORE_FETCHED_ITEMS, fetchedFirst)) === undefined) return;
    ctx.delete(USER_SCORE_FETCHED_ITEMS, fetchedFirst);
  }
  if (!data.creator) return;
  const user = await userDoc(ctx, orgId, data.creator);
  putUser(ctx, { ...user, submissions: user.submissions + 1 });
}

async function userDoc(ctx: ProjectionContext, orgId: string, user: UserRef): Promise<UserScoreDoc> {
  return (
    (await ctx.get<UserScoreDoc>(USER_SCORES, userScoreDocId(orgId, user))) ?? {
      orgId,
      user: { id: user.id, typeId: user.typeId },
      submissions: 0,
      actionedBy: {},
    }
  );
}

function putUser(ctx: ProjectionContext, doc: UserScoreDoc): void {
  ctx.put(USER_SCORES, userScoreDocId(doc.orgId, doc.user), doc as unknown as ReadDocument);
}

/** Changes one item's actions, and the user's counts with them. */
async function updateItem(ctx: ProjectionContext, orgId: string, user: UserRef, item: UserRef, change: (actions: ItemActions) => ItemActions): Promise<void> {
  const id = userScoreItemDocId(orgId, user, item);
  const previous = (await ctx.get<UserScoreItemDoc>(USER_SCORE_ITEMS, id)) ?? {
    orgId,
    user: { id: user.id, typeId: user.typeId },
    item: { id: item.id, typeId: item.typeId },
    actions: [],
  };
  const next = change(previous);
  if (next === previous) return;
  const doc: UserScoreItemDoc = {
    orgId,
    user: previous.user,
    item: previous.item,
    actions: next.actions,
    ...(next.reversedKeys ? { reversedKeys: next.reversedKeys } : {}),
  };
  ctx.put(USER_SCORE_ITEMS, id, doc as unknown as ReadDocument);
  const counts = await userDoc(ctx, orgId, user);
  putUser(ctx, { ...counts, ...withItemChange(counts, previous.actions, next.actions) });
}
