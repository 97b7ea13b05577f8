import type { DomainEvent } from '#warden/kernel';

/** The user a stream counts strikes for (an item identifier of a USER item type). */
export interface StruckUser {
  id: string;
  typeId: string;
}

/**
 * Strikes an action gave the user. `key` identifies the action's application (org, item, version
 * and action for a rule; the decision's delivery for a decision): one application counts once.
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
 * when the count falls below them).
 */
export type UserStrikeThresholdCrossed = DomainEvent<
  'UserStrikeThresholdCrossed',
  { key: string; strikes: number; actionIds: string[]; crossed: number[]; count: number; crossedAt: string }
>;

/** The USER item as callbacks name it. */
export interface UserItem {
  id: string;
  typeId: string;
  typeName: string;
}

/**
 * A threshold's customer-defined action: the callbacks module's delivery reactor sends it (the
 * event type and shape every module publishes, with trigger 'strike-threshold').
 */
export type ThresholdCallbackRequested = DomainEvent<
  'ActionCallbackRequested',
  {
    deliveryId: string;
    item: UserItem;
    action: { id: string };
    policies: [];
    rules: [];
    custom: { [key: string]: unknown };
    creator: { id: string; typeId: string };
    environment: 'LIVE';
    trigger: 'strike-threshold';
    userStrikeCount: number;
  }
>;

/** A threshold's ENQUEUE_TO_MRT / ENQUEUE_TO_CHILD_SAFETY action: the review module enqueues the user. */
export type ThresholdEnqueueRequested = DomainEvent<
  'ReviewEnqueueRequested',
  {
    jobId: string;
    item: UserItem;
    version: number;
    queueId: 'default' | 'child-safety';
    source: 'POST_ACTIONS';
    actionId: string;
    policies: [];
    rules: [];
    environment: 'LIVE';
  }
>;

export type UserStrikesEvent =
  | UserStrikesApplied
  | UserStrikeThresholdCrossed
  | ThresholdCallbackRequested
  | ThresholdEnqueueRequested;
