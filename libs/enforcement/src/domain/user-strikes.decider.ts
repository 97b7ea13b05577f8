import type { ActionKind } from '#warden/catalog/contracts';
import { type Decider, deterministicId } from '#warden/kernel';
import type {
  StruckUser,
  ThresholdCallbackRequested,
  ThresholdEnqueueRequested,
  UserActionsReversed,
  UserItem,
  UserStrikesApplied,
  UserStrikesEvent,
  UserStrikeThresholdCrossed,
} from './user-strikes.events.js';

const DAY_MS = 86_400_000;
/** A crossing counted later than this after its action is recorded without taking the threshold's action. */
export const LATE_CROSSING_MS = DAY_MS;

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
  /** When the action happened (its event's time), ISO 8601: the window ends there. */
  readonly at: string;
  /** The injected clock's now, ISO 8601: how late the action is counted. */
  readonly now: string;
  /** `strikes.windowDays`; null: strikes never stop counting. */
  readonly windowDays: number | null;
  readonly thresholds: readonly StrikeThreshold[];
}

/** An accepted appeal: the appealed actions on the item stop counting against the user. */
export interface ReverseUserActions {
  readonly type: 'ReverseUserActions';
  readonly appealId: string;
  readonly user: StruckUser;
  readonly item: { readonly id: string; readonly typeId: string };
  readonly actionIds: readonly string[];
  /** The appeal's decision time, ISO 8601: the count after the reversal is taken there. */
  readonly at: string;
  readonly windowDays: number | null;
}

export type UserStrikesCommand = ApplyUserStrikes | ReverseUserActions;

export interface Application {
  readonly strikes: number;
  readonly at: string;
  readonly countAfter: number;
  readonly actionId: string;
  readonly item: { readonly id: string; readonly typeId: string };
  /** Reversed by an accepted appeal: no longer counted, and never applied again under its key. */
  readonly reversed: boolean;
}

export interface UserStrikesState {
  /** Every application so far, by key, with its strikes and time (for the window). */
  readonly applications: ReadonlyMap<string, Application>;
  /** Appeals whose reversal is recorded. */
  readonly reversedAppeals: ReadonlySet<string>;
}

export const initialUserStrikesState: UserStrikesState = { applications: new Map(), reversedAppeals: new Set() };

/** Whether an application counts in the window that ends at `now`: not reversed, and applied within it (always without a window). */
export function isCounting(application: Application | undefined, now: Date, windowDays: number | null): boolean {
  if (!application || application.reversed) return false;
  return windowDays === null || Date.parse(application.at) > now.getTime() - windowDays * DAY_MS;
}

/** Strikes applied within the window that ends at `now` (all of them without a window), reversals left out. */
export function strikeCount(state: UserStrikesState, now: Date, windowDays: number | null): number {
  let count = 0;
  for (const application of state.applications.values()) if (isCounting(application, now, windowDays)) count += application.strikes;
  return count;
}

/**
 * A user's strikes (`user_strikes-…`): applications counted once by key, and threshold crossings
 * decided here, on the write side, so that concurrent applications (appended with the expected
 * revision) cross a threshold once. The firing (a callback or an enqueue request) is appended with
 * the crossing, so it is requested exactly when the crossing is recorded.
 */
export const userStrikesDecider: Decider<UserStrikesCommand, UserStrikesState, UserStrikesEvent> = {
  eventTypes: {
    UserStrikesApplied: true,
    UserStrikeThresholdCrossed: true,
    UserActionsReversed: true,
    ActionCallbackRequested: true,
    ReviewEnqueueRequested: true,
  },
  initialState: initialUserStrikesState,

  decide(command, state) {
    return command.type === 'ReverseUserActions' ? reverse(command, state) : apply(command, state);
  },

  evolve(state, event) {
    if (event.type === 'UserActionsReversed') {
      const applications = new Map(state.applications);
      for (const key of event.data.keys) {
        const application = applications.get(key);
        if (application) applications.set(key, { ...application, reversed: true });
      }
      return { applications, reversedAppeals: new Set([...state.reversedAppeals, event.data.appealId]) };
    }
    if (event.type !== 'UserStrikesApplied') return state;
    const applications = new Map(state.applications);
    const { key, strikes, appliedAt, countAfter, action, item } = event.data;
    applications.set(key, { strikes, at: appliedAt, countAfter, actionId: action.id, item, reversed: false });
    return { ...state, applications };
  },
};

function apply(command: ApplyUserStrikes, state: UserStrikesState): UserStrikesEvent[] {
  if (command.strikes <= 0 || state.applications.has(command.key)) return [];
  const at = new Date(command.at);
  const before = strikeCount(state, at, command.windowDays);
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
      appliedAt: command.at,
    },
  };
  // Crossing needs the count below the threshold first: that is its re-arming, whether the count
  // fell by strikes ageing out of the window or by a reversal.
  const crossed = [...new Set(command.thresholds.map((t) => t.strikes))].filter((s) => before < s && s <= after).sort((a, b) => a - b);
  if (crossed.length === 0) return [applied];
  const highest = crossed[crossed.length - 1]!;
  const firing = command.thresholds.filter((t) => t.strikes === highest);
  const late = Date.parse(command.now) - at.getTime() > LATE_CROSSING_MS;
  const notFired: { [actionId: string]: 'late' } = {};
  if (late) for (const t of firing) notFired[t.actionId] = 'late';
  const crossing: UserStrikeThresholdCrossed = {
    type: 'UserStrikeThresholdCrossed',
    data: {
      key: command.key,
      strikes: highest,
      actionIds: firing.map((t) => t.actionId),
      crossed,
      count: after,
      crossedAt: command.at,
      ...(Object.keys(notFired).length > 0 ? { notFired } : {}),
    },
  };
  return [applied, crossing, ...firing.filter((t) => !notFired[t.actionId]).flatMap((t) => fire(command, t, after))];
}

/**
 * Reverses, once per appeal, the applications of the appealed actions on the appealed item. The
 * reversal is recorded even when they applied no strikes, for the score. The count falls, so
 * thresholds above it re-arm: the next crossing fires again.
 */
function reverse(command: ReverseUserActions, state: UserStrikesState): UserStrikesEvent[] {
  if (state.reversedAppeals.has(command.appealId)) return [];
  const keys: string[] = [];
  let strikes = 0;
  for (const [key, application] of state.applications) {
    const sameItem = application.item.id === command.item.id && application.item.typeId === command.item.typeId;
    if (application.reversed || !sameItem || !command.actionIds.includes(application.actionId)) continue;
    keys.push(key);
    strikes += application.strikes;
  }
  const after = strikeCount(
    { ...state, applications: new Map([...state.applications].filter(([key]) => !keys.includes(key))) },
    new Date(command.at),
    command.windowDays,
  );
  const reversed: UserActionsReversed = {
    type: 'UserActionsReversed',
    data: {
      appealId: command.appealId,
      user: { id: command.user.id, typeId: command.user.typeId },
      item: { id: command.item.id, typeId: command.item.typeId },
      actionIds: [...command.actionIds],
      keys,
      strikes,
      countAfter: after,
      reversedAt: command.at,
    },
  };
  return [reversed];
}

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
