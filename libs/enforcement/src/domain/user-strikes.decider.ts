import type { ActionKind } from '#warden/catalog/contracts';
import { type Decider, deterministicId } from '#warden/kernel';
import type {
  ThresholdCallbackRequested,
  ThresholdEnqueueRequested,
  UserItem,
  UserStrikesApplied,
  UserStrikesEvent,
  UserStrikeThresholdCrossed,
} from './user-strikes.events.js';

const DAY_MS = 86_400_000;

/** A configured threshold, with what firing its action needs from the catalog. */
export interface StrikeThreshold {
  readonly strikes: number;
  readonly actionId: string;
  /** Undefined: the action is gone from the catalog; the crossing is recorded, nothing is sent. */
  readonly action?: { readonly kind: ActionKind; readonly body: { readonly [key: string]: unknown } };
}

/** Applies an action's strikes to a user, once per application key. */
export interface ApplyUserStrikes {
  readonly type: 'ApplyUserStrikes';
  readonly key: string;
  readonly strikes: number;
  readonly action: { id: string };
  readonly policyIds: readonly string[];
  readonly item: { id: string; typeId: string };
  /** The user, as the item a threshold's action is taken on; `version`: its latest submission. */
  readonly user: UserItem & { readonly version: number };
  /** The injected clock's now, ISO 8601. */
  readonly now: string;
  /** `strikes.windowDays`; null: strikes never stop counting. */
  readonly windowDays: number | null;
  readonly thresholds: readonly StrikeThreshold[];
}

export type UserStrikesCommand = ApplyUserStrikes;

export interface UserStrikesState {
  /** Every application so far, by key, with its strikes and time (for the window). */
  readonly applications: ReadonlyMap<string, { strikes: number; at: string; countAfter: number }>;
}

export const initialUserStrikesState: UserStrikesState = { applications: new Map() };

/** Strikes applied within the window that ends at `now` (all of them without a window). */
export function strikeCount(state: UserStrikesState, now: Date, windowDays: number | null): number {
  const from = windowDays === null ? -Infinity : now.getTime() - windowDays * DAY_MS;
  let count = 0;
  for (const { strikes, at } of state.applications.values()) if (Date.parse(at) > from) count += strikes;
  return count;
}

/**
 * A user's strikes (`user_strikes-…`): applications counted once by key, and threshold crossings
 * decided here, on the write side, so that concurrent applications (appended with the expected
 * revision) cross a threshold once. The firing (a callback or an enqueue request) is appended with
 * the crossing, so it is requested exactly when the crossing is recorded.
 */
export const userStrikesDecider: Decider<UserStrikesCommand, UserStrikesState, UserStrikesEvent> = {
  eventTypes: { UserStrikesApplied: true, UserStrikeThresholdCrossed: true, ActionCallbackRequested: true, ReviewEnqueueRequested: true },
  initialState: initialUserStrikesState,

  decide(command, state) {
    if (command.strikes <= 0 || state.applications.has(command.key)) return [];
    const now = new Date(command.now);
    const before = strikeCount(state, now, command.windowDays);
    const after = before + command.strikes;
    const applied: UserStrikesApplied = {
      type: 'UserStrikesApplied',
      data: {
        key: command.key,
        strikes: command.strikes,
        countAfter: after,
        action: { id: command.action.id },
        policyIds: [...command.policyIds],
        item: { id: command.item.id, typeId: command.item.typeId },
        appliedAt: command.now,
      },
    };
    // Crossing needs the count below the threshold first: that is its re-arming, whether the count
    // fell by strikes ageing out of the window or by a reversal.
    const crossed = [...new Set(command.thresholds.map((t) => t.strikes))].filter((s) => before < s && s <= after).sort((a, b) => a - b);
    if (crossed.length === 0) return [applied];
    const highest = crossed[crossed.length - 1]!;
    const firing = command.thresholds.filter((t) => t.strikes === highest);
    const crossing: UserStrikeThresholdCrossed = {
      type: 'UserStrikeThresholdCrossed',
      data: { key: command.key, strikes: highest, actionIds: firing.map((t) => t.actionId), crossed, count: after, crossedAt: command.now },
    };
    return [applied, crossing, ...firing.flatMap((t) => fire(command, t, after))];
  },

  evolve(state, event) {
    if (event.type !== 'UserStrikesApplied') return state;
    const applications = new Map(state.applications);
    applications.set(event.data.key, { strikes: event.data.strikes, at: event.data.appliedAt, countAfter: event.data.countAfter });
    return { applications };
  },
};

function fire(command: ApplyUserStrikes, threshold: StrikeThreshold, count: number): Array<ThresholdCallbackRequested | ThresholdEnqueueRequested> {
  if (!threshold.action) return [];
  const { version, ...item } = command.user;
  const id = (kind: string) => deterministicId(kind, command.key, String(threshold.strikes), threshold.actionId);
  if (threshold.action.kind === 'CUSTOMER_DEFINED_ACTION') {
    return [
      {
        type: 'ActionCallbackRequested',
        data: {
          deliveryId: id('strike-threshold-delivery'),
          item,
          action: { id: threshold.actionId },
          policies: [],
          rules: [],
          custom: { ...threshold.action.body },
          creator: { id: item.id, typeId: item.typeId },
          environment: 'LIVE',
          trigger: 'strike-threshold',
          userStrikeCount: count,
        },
      },
    ];
  }
  return [
    {
      type: 'ReviewEnqueueRequested',
      data: {
        jobId: id('strike-threshold-review-job'),
        item,
        version,
        queueId: threshold.action.kind === 'ENQUEUE_TO_CHILD_SAFETY' ? 'child-safety' : 'default',
        source: 'POST_ACTIONS',
        actionId: threshold.actionId,
        policies: [],
        rules: [],
        environment: 'LIVE',
      },
    },
  ];
}
