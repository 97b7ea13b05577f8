import type { ActionCallbackRequested } from '#warden/callbacks/contracts';
import type { DomainEvent } from '#warden/kernel';
import type { ReviewEnqueueRequested } from '#warden/review/contracts';

/** The user a stream counts strikes for (an item identifier of a USER item type). */
export interface StruckUser {
  id: string;
  typeId: string;
}

/**
 * Strikes an action gave the user. `key` identifies the action's application (org, item, content
 * and action for a rule; the delivery for a decision or an executed action): one application
 * counts once. `appliedAt` is when the action happened (its event's time), not when the strikes
 * were counted: the window runs from there, on every replay alike.
 */
export type UserStrikesApplied = DomainEvent<
  'UserStrikesApplied',
  {
    key: string;
    strikes: number;
    /** The windowed count once these strikes are in: what the action's callback reports. */
    countAfter: number;
    action: { id: string };
    policyIds: string[];
    item: { id: string; typeId: string };
    appliedAt: string;
  }
>;

/**
 * The count went from below `strikes` to at or above it. `crossed` holds every threshold this
 * application crossed (only the highest fires; the others are passed all the same and re-arm
 * when the count falls below them). `notFired`: the crossing is recorded but its action was not
 * taken — `late`: the action that crossed it happened more than a day before it was counted (an
 * upgrade counting past actions, a worker down for long), when a ban would come out of the blue.
 * A threshold's action is taken on the user item whatever item types the action names: the
 * configuration's own example sets a threshold on a post action.
 */
export type UserStrikeThresholdCrossed = DomainEvent<
  'UserStrikeThresholdCrossed',
  {
    key: string;
    strikes: number;
    actionIds: string[];
    crossed: number[];
    count: number;
    crossedAt: string;
    notFired?: { [actionId: string]: 'late' };
  }
>;

/**
 * An accepted appeal reversed the appealed actions on the user's item: the strikes they applied
 * (`keys`, `strikes` in all) no longer count, and neither does their penalty in the user's score.
 * Recorded once per appeal, also when the actions applied no strikes (the score still moves).
 */
export type UserActionsReversed = DomainEvent<
  'UserActionsReversed',
  {
    appealId: string;
    user: StruckUser;
    item: { id: string; typeId: string };
    actionIds: string[];
    keys: string[];
    strikes: number;
    countAfter: number;
    reversedAt: string;
    /** Of `keys`, those the state no longer held one by one: what each took out of its day's strikes. */
    earlier?: Array<{ key: string; strikes: number; appliedAt: string }>;
  }
>;

/** The USER item as callbacks name it. */
export interface UserItem {
  id: string;
  typeId: string;
  typeName: string;
}

/**
 * A threshold's actions: a customer-defined action's callback (ActionCallbackRequested with trigger
 * 'strike-threshold', the callbacks module's contract) or an ENQUEUE_TO_MRT /
 * ENQUEUE_TO_CHILD_SAFETY action's ReviewEnqueueRequested (review's contract), on the USER item.
 */
export type UserStrikesEvent = UserStrikesApplied | UserStrikeThresholdCrossed | UserActionsReversed | ActionCallbackRequested | ReviewEnqueueRequested;
