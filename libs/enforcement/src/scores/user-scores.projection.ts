import type { Projection, ProjectionContext } from '#warden/eventstore';
import type { ItemSubmitted } from '#warden/ingestion';
import type { RecordedEvent } from '#warden/kernel';
import type { ReadDocument } from '#warden/readstore';
import type { ActionCallbackRequested } from '#warden/rules';
import { type UserRef, type UserScoreFacts, withAction, withoutAction } from '../domain/user-score.js';
import type { UserActionsReversed } from '../domain/user-strikes.events.js';
import { publicationKey } from '../strikes/publication-key.js';
import { USER_SCORE_EVENT_TYPES } from './user-score.events.js';
import { USER_SCORES, USER_SCORES_PROJECTION, type UserScoreDoc, userScoreDocId } from './user-scores.read-model.js';

type PublishedAction = ActionCallbackRequested['data'];

/**
 * Per user: the items they created and the actions taken on them, for GET /api/v1/user_scores and
 * the USER_SCORE signal. The score itself is computed when read, with the configuration then in
 * force. Idempotent by construction: each document is written at the position of the event that
 * changed it, so a redelivered event is skipped for it (ReadStore contract), and the actions are
 * a set besides.
 */
export const userScoresProjection: Projection = {
  name: USER_SCORES_PROJECTION,
  collections: [USER_SCORES],
  eventTypes: USER_SCORE_EVENT_TYPES,
  // Only ids and penalties are read: item data and report texts stay sealed.
  needsPersonalData: false,
  async apply(recorded: RecordedEvent, ctx: ProjectionContext) {
    const orgId = recorded.metadata.orgId;
    if (recorded.type === 'ItemSubmitted') {
      const data = recorded.data as unknown as ItemSubmitted['data'];
      // An item is one submission however many versions it gets; a USER item is its own creator.
      if (!data.creator || recorded.revision !== 0) return;
      await update(ctx, orgId, data.creator, (facts) => ({ ...facts, submissions: facts.submissions + 1 }));
      return;
    }
    if (recorded.type === 'UserActionsReversed') {
      const { user, item, actionIds } = recorded.data as unknown as UserActionsReversed['data'];
      await update(ctx, orgId, user, (facts) => actionIds.reduce((left, actionId) => withoutAction(left, item, actionId), facts));
      return;
    }
    const data = recorded.data as unknown as PublishedAction;
    // A strike threshold's action follows from actions already counted: counting it too would punish twice.
    if (!data.creator || data.trigger === 'strike-threshold') return;
    const action = { actionId: data.action.id, policyPenalties: data.policies.map((p) => p.penalty), keys: [publicationKey(recorded)] };
    await update(ctx, orgId, data.creator, (facts) => withAction(facts, { id: data.item.id, typeId: data.item.typeId }, action));
  },
};

async function update(ctx: ProjectionContext, orgId: string, user: UserRef, change: (facts: UserScoreFacts) => UserScoreFacts): Promise<void> {
  const id = userScoreDocId(orgId, user);
  const previous = (await ctx.get<UserScoreDoc>(USER_SCORES, id)) ?? { orgId, user: { id: user.id, typeId: user.typeId }, submissions: 0, actioned: [] };
  const next = change(previous);
  if (next === previous) return;
  const doc: UserScoreDoc = {
    orgId,
    user: previous.user,
    submissions: next.submissions,
    actioned: next.actioned,
    ...(next.reversedKeys ? { reversedKeys: next.reversedKeys } : {}),
  };
  ctx.put(USER_SCORES, id, doc as unknown as ReadDocument);
}
