import type { ActionCallbackRequested } from '#warden/callbacks/contracts';
import type { ReviewEnqueueRequested } from '#warden/review/contracts';
import type { ActionKind } from '#warden/catalog/contracts';
import { type Decider, deterministicId, type Json } from '#warden/kernel';
import type { StruckUser, UserActionsReversed, UserItem, UserStrikesApplied, UserStrikesEvent, UserStrikeThresholdCrossed } from './user-strikes.events.js';

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
  /**
   * The user, as the item a threshold's action is taken on; `version`: its latest submission, which
   * only a threshold that opens a review job records (the applier reads it only then; 0 otherwise).
   */
  readonly user: UserItem & { readonly version: number };
  /** When the action happened (its event's time), ISO 8601: the window ends there. */
  readonly at: string;
  /** The injected clock's now, ISO 8601: how late the action is counted. */
  readonly now: string;
  /** `strikes.windowDays`; null: strikes never stop counting. */
  readonly windowDays: number | null;
  readonly thresholds: readonly StrikeThreshold[];
}

/** An application as its UserStrikesApplied event recorded it (what a reversal reads of older ones). */
export interface RecordedApplication {
  readonly key: string;
  readonly strikes: number;
  readonly appliedAt: string;
  readonly actionId: string;
  readonly item: { readonly id: string; readonly typeId: string };
}

/** An accepted appeal: the appealed actions on the item stop counting against the user. */
export interface ReverseUserActions {
  readonly type: 'ReverseUserActions';
  readonly appealId: string;
  readonly user: StruckUser;
  readonly item: { readonly id: string; readonly typeId: string };
  readonly actionIds: readonly string[];
  /**
   * The item's applications the state no longer holds one by one (see `earlier` in the state), read
   * from the stream by the handler when there are such: empty otherwise.
   */
  readonly earlier: readonly RecordedApplication[];
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

/** The newest applications the state holds one by one; older ones are summed per day (docs/architecture.md, "Streams"). */
export const RECENT_APPLICATIONS = 256;
/** Keys of older applications remembered per generation, two generations kept (a re-run's idempotency). */
export const KEY_GENERATION = 1024;
/** Days of older applications summed one by one; older days are summed together (only a window-less count reads them). */
export const MAX_DAY_BUCKETS = 3660;

/**
 * What the applications older than the newest RECENT_APPLICATIONS still count for: their strikes
 * per UTC day of their action, so the state stays bounded however many actions a user received.
 */
export interface EarlierApplications {
  /** How many applications left `applications` (0: the state holds every application). */
  readonly count: number;
  /** Strikes not reversed, by day since the epoch of the action's time. */
  readonly strikesByDay: ReadonlyMap<number, number>;
  /** Strikes of days beyond MAX_DAY_BUCKETS. */
  readonly ancientStrikes: number;
  /** Their keys, newest generation first: an application re-run soon after counts once. */
  readonly keys: readonly [ReadonlySet<string>, ReadonlySet<string>];
  /** Older applications reversed by an accepted appeal (reversals are few). */
  readonly reversedKeys: ReadonlySet<string>;
}

export interface UserStrikesState {
  /** The newest applications (at most RECENT_APPLICATIONS), by key, oldest first, with their strikes and time. */
  readonly applications: ReadonlyMap<string, Application>;
  readonly earlier: EarlierApplications;
  /** Appeals whose reversal is recorded. */
  readonly reversedAppeals: ReadonlySet<string>;
}

const noEarlierApplications: EarlierApplications = {
  count: 0,
  strikesByDay: new Map(),
  ancientStrikes: 0,
  keys: [new Set(), new Set()],
  reversedKeys: new Set(),
};

export const initialUserStrikesState: UserStrikesState = { applications: new Map(), earlier: noEarlierApplications, reversedAppeals: new Set() };

/** Whether an application counts in the window that ends at `now`: not reversed, and applied within it (always without a window). */
export function isCounting(application: Application | undefined, now: Date, windowDays: number | null): boolean {
  if (!application || application.reversed) return false;
  return windowDays === null || Date.parse(application.at) > now.getTime() - windowDays * DAY_MS;
}

/** Whether a recorded application counts now, also one the state no longer holds by itself. */
export function isCountingApplied(state: UserStrikesState, applied: { key: string; appliedAt: string }, now: Date, windowDays: number | null): boolean {
  const application = state.applications.get(applied.key);
  if (application) return isCounting(application, now, windowDays);
  if (state.earlier.reversedKeys.has(applied.key)) return false;
  return windowDays === null || Date.parse(applied.appliedAt) > now.getTime() - windowDays * DAY_MS;
}

/**
 * Strikes applied within the window that ends at `now` (all of them without a window), reversals
 * left out. Older applications count by their day: a day that reaches into the window counts whole.
 */
export function strikeCount(state: UserStrikesState, now: Date, windowDays: number | null): number {
  let count = 0;
  for (const application of state.applications.values()) if (isCounting(application, now, windowDays)) count += application.strikes;
  const { strikesByDay, ancientStrikes } = state.earlier;
  if (windowDays === null) {
    count += ancientStrikes;
    for (const strikes of strikesByDay.values()) count += strikes;
    return count;
  }
  const cutoff = now.getTime() - windowDays * DAY_MS;
  for (const [day, strikes] of strikesByDay) if ((day + 1) * DAY_MS > cutoff) count += strikes;
  return count;
}

/** Whether the key's application is recorded (held, or remembered among the older ones' keys). */
function isApplied(state: UserStrikesState, key: string): boolean {
  return state.applications.has(key) || state.earlier.keys[0].has(key) || state.earlier.keys[1].has(key);
}

const dayOf = (iso: string) => Math.floor(Date.parse(iso) / DAY_MS);

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
      return {
        applications,
        earlier: reverseEarlier(state.earlier, event.data.earlier ?? []),
        reversedAppeals: new Set([...state.reversedAppeals, event.data.appealId]),
      };
    }
    if (event.type !== 'UserStrikesApplied') return state;
    const applications = new Map(state.applications);
    const { key, strikes, appliedAt, countAfter, action, item } = event.data;
    applications.set(key, { strikes, at: appliedAt, countAfter, actionId: action.id, item, reversed: false });
    if (applications.size <= RECENT_APPLICATIONS) return { ...state, applications };
    const [oldestKey, oldest] = applications.entries().next().value!;
    applications.delete(oldestKey);
    return { ...state, applications, earlier: retire(state.earlier, oldestKey, oldest) };
  },

  snapshot: {
    name: 'user_strikes',
    version: 1,
    encode: (state) => encodeState(state),
    decode: (json) => decodeState(json),
  },
};

/** An application leaves the ones held by themselves: its strikes join its day's, its key the newest generation. */
function retire(earlier: EarlierApplications, key: string, application: Application): EarlierApplications {
  const [newest, previous] = earlier.keys;
  const keys: EarlierApplications['keys'] = newest.size >= KEY_GENERATION ? [new Set([key]), newest] : [new Set(newest).add(key), previous];
  if (application.reversed) {
    return { ...earlier, count: earlier.count + 1, keys, reversedKeys: new Set(earlier.reversedKeys).add(key) };
  }
  const strikesByDay = new Map(earlier.strikesByDay);
  const day = dayOf(application.at);
  strikesByDay.set(day, (strikesByDay.get(day) ?? 0) + application.strikes);
  let ancientStrikes = earlier.ancientStrikes;
  while (strikesByDay.size > MAX_DAY_BUCKETS) {
    const first = Math.min(...strikesByDay.keys());
    ancientStrikes += strikesByDay.get(first)!;
    strikesByDay.delete(first);
  }
  return { count: earlier.count + 1, strikesByDay, ancientStrikes, keys, reversedKeys: earlier.reversedKeys };
}

/** Older applications a reversal took out: their strikes leave their day's. */
function reverseEarlier(earlier: EarlierApplications, reversed: ReadonlyArray<{ key: string; strikes: number; appliedAt: string }>): EarlierApplications {
  if (reversed.length === 0) return earlier;
  const strikesByDay = new Map(earlier.strikesByDay);
  const reversedKeys = new Set(earlier.reversedKeys);
  let ancientStrikes = earlier.ancientStrikes;
  for (const r of reversed) {
    if (reversedKeys.has(r.key)) continue;
    reversedKeys.add(r.key);
    const day = dayOf(r.appliedAt);
    const held = strikesByDay.get(day);
    if (held === undefined) ancientStrikes = Math.max(0, ancientStrikes - r.strikes);
    else strikesByDay.set(day, Math.max(0, held - r.strikes));
  }
  return { ...earlier, strikesByDay, ancientStrikes, reversedKeys };
}

function encodeState(state: UserStrikesState): Json {
  const e = state.earlier;
  return {
    applications: [...state.applications].map(([key, a]) => [key, a.strikes, a.at, a.countAfter, a.actionId, a.item.id, a.item.typeId, a.reversed]),
    earlier: {
      count: e.count,
      strikesByDay: [...e.strikesByDay],
      ancientStrikes: e.ancientStrikes,
      keys: [[...e.keys[0]], [...e.keys[1]]],
      reversedKeys: [...e.reversedKeys],
    },
    reversedAppeals: [...state.reversedAppeals],
  };
}

type EncodedApplication = [string, number, string, number, string, string, string, boolean];

function decodeState(json: Json): UserStrikesState {
  const s = json as {
    applications: EncodedApplication[];
    earlier: { count: number; strikesByDay: Array<[number, number]>; ancientStrikes: number; keys: [string[], string[]]; reversedKeys: string[] };
    reversedAppeals: string[];
  };
  return {
    applications: new Map(
      s.applications.map(([key, strikes, at, countAfter, actionId, id, typeId, reversed]) => [
        key,
        { strikes, at, countAfter, actionId, item: { id, typeId }, reversed },
      ]),
    ),
    earlier: {
      count: s.earlier.count,
      strikesByDay: new Map(s.earlier.strikesByDay),
      ancientStrikes: s.earlier.ancientStrikes,
      keys: [new Set(s.earlier.keys[0]), new Set(s.earlier.keys[1])],
      reversedKeys: new Set(s.earlier.reversedKeys),
    },
    reversedAppeals: new Set(s.reversedAppeals),
  };
}

function apply(command: ApplyUserStrikes, state: UserStrikesState): UserStrikesEvent[] {
  if (command.strikes <= 0 || isApplied(state, command.key)) return [];
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
  const reversesAction = (item: { id: string; typeId: string }, actionId: string) =>
    item.id === command.item.id && item.typeId === command.item.typeId && command.actionIds.includes(actionId);
  for (const [key, application] of state.applications) {
    if (application.reversed || !reversesAction(application.item, application.actionId)) continue;
    keys.push(key);
    strikes += application.strikes;
  }
  const earlier = command.earlier
    .filter((a) => !state.applications.has(a.key) && !state.earlier.reversedKeys.has(a.key) && reversesAction(a.item, a.actionId))
    .map((a) => ({ key: a.key, strikes: a.strikes, appliedAt: a.appliedAt }));
  for (const a of earlier) {
    keys.push(a.key);
    strikes += a.strikes;
  }
  const after = strikeCount(
    {
      ...state,
      applications: new Map([...state.applications].filter(([key]) => !keys.includes(key))),
      earlier: reverseEarlier(state.earlier, earlier),
    },
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
      ...(earlier.length > 0 ? { earlier } : {}),
    },
  };
  return [reversed];
}

function fire(command: ApplyUserStrikes, threshold: StrikeThreshold, count: number): Array<ActionCallbackRequested | ReviewEnqueueRequested> {
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
