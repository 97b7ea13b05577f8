import { describe, expect, it } from 'vitest';
import { deciderSpecification, FixedClock } from '#warden/kernel';
import {
  type ApplyUserStrikes,
  isCountingApplied,
  KEY_GENERATION,
  RECENT_APPLICATIONS,
  type ReverseUserActions,
  strikeCount,
  type StrikeThreshold,
  type UserStrikesCommand,
  userStrikesDecider,
  type UserStrikesState,
} from './user-strikes.decider.js';
import type { UserStrikesApplied, UserStrikesEvent } from './user-strikes.events.js';

const DAY = 86_400_000;
const remove = { kind: 'CUSTOMER_DEFINED_ACTION' as const, body: { severity: 'high' } };
const ban = { kind: 'CUSTOMER_DEFINED_ACTION' as const, body: {} };

const spec = deciderSpecification(userStrikesDecider);

/** The action happened at `at`; it is counted `countedLaterBy` ms after (0: at once). */
function apply(
  key: string,
  strikes: number,
  at: Date,
  options: { windowDays?: number | null; thresholds?: StrikeThreshold[]; countedLaterBy?: number; actionId?: string; itemId?: string } = {},
): ApplyUserStrikes {
  return {
    type: 'ApplyUserStrikes',
    key,
    strikes,
    action: { id: options.actionId ?? 'remove' },
    policyIds: ['spam'],
    item: { id: options.itemId ?? `post-${key}`, typeId: 'post' },
    user: { id: 'u1', typeId: 'user', typeName: 'User', version: 2 },
    at: at.toISOString(),
    now: new Date(at.getTime() + (options.countedLaterBy ?? 0)).toISOString(),
    windowDays: options.windowDays ?? null,
    thresholds: options.thresholds ?? [],
  };
}

/** Applies the commands in order, each on the state the previous left. */
function run(commands: UserStrikesCommand[], history: UserStrikesEvent[] = []): UserStrikesEvent[] {
  const log = [...history];
  for (const command of commands) log.push(...spec.given(log).when(command).events());
  return log;
}

const types = (events: UserStrikesEvent[]) => events.map((e) => e.type);
const fired = (events: UserStrikesEvent[]) => events.filter((e) => e.type === 'ActionCallbackRequested' || e.type === 'ReviewEnqueueRequested');

describe('user strikes decider', () => {
  const clock = new FixedClock(new Date('2026-03-01T12:00:00Z'));
  const at3 = [{ strikes: 3, actionId: 'ban', action: ban }];

  it("applies an action's strikes and records the count after it", () => {
    const events = spec
      .given([])
      .when(apply('a', 2, clock.now()))
      .events();
    expect(events).toEqual([
      {
        type: 'UserStrikesApplied',
        data: {
          key: 'a',
          strikes: 2,
          countAfter: 2,
          action: { id: 'remove' },
          policyIds: ['spam'],
          item: { id: 'post-a', typeId: 'post' },
          appliedAt: '2026-03-01T12:00:00.000Z',
        },
      },
    ]);
  });

  it('counts one application once: the same key again decides nothing', () => {
    const history = run([apply('a', 1, clock.now())]);
    spec
      .given(history)
      .when(apply('a', 1, clock.now()))
      .thenNothing();
    expect(strikeCount(spec.given(history).state, clock.now(), null)).toBe(1);
  });

  it('applies nothing for no strikes', () => {
    spec
      .given([])
      .when(apply('a', 0, clock.now(), { thresholds: at3 }))
      .thenNothing();
  });

  it('fires a threshold when the count goes from below it to at or above it, with the spec 6.2 threshold shape', () => {
    const history = run([apply('a', 1, clock.now(), { thresholds: at3 }), apply('b', 1, clock.now(), { thresholds: at3 })]);
    expect(fired(history)).toEqual([]);
    const events = spec
      .given(history)
      .when(apply('c', 1, clock.now(), { thresholds: at3 }))
      .events();
    expect(types(events)).toEqual(['UserStrikesApplied', 'UserStrikeThresholdCrossed', 'ActionCallbackRequested']);
    expect(events[1]!.data).toMatchObject({ strikes: 3, actionIds: ['ban'], crossed: [3], count: 3 });
    const callback = events[2]!.data as { [key: string]: unknown };
    expect(callback).toEqual({
      deliveryId: expect.any(String),
      item: { id: 'u1', typeId: 'user', typeName: 'User' },
      action: { id: 'ban' },
      policies: [],
      rules: [],
      custom: {},
      creator: { id: 'u1', typeId: 'user' },
      environment: 'LIVE',
      trigger: 'strike-threshold',
      userStrikeCount: 3,
    });
    expect(callback).not.toHaveProperty('actorEmail');
  });

  it('fires once: later applications above the threshold fire nothing', () => {
    const log = run(['a', 'b', 'c', 'd', 'e'].map((k) => apply(k, 1, clock.now(), { thresholds: at3 })));
    expect(fired(log)).toHaveLength(1);
  });

  it('fires only the highest of several thresholds one application crosses', () => {
    const thresholds = [
      { strikes: 2, actionId: 'remove', action: remove },
      { strikes: 3, actionId: 'ban', action: ban },
      { strikes: 10, actionId: 'remove', action: remove },
    ];
    const events = spec
      .given(run([apply('a', 1, clock.now(), { thresholds })]))
      .when(apply('b', 4, clock.now(), { thresholds }))
      .events();
    expect(fired(events)).toHaveLength(1);
    expect(fired(events)[0]!.data).toMatchObject({ action: { id: 'ban' }, userStrikeCount: 5 });
    expect(events[1]!.data).toMatchObject({ strikes: 3, crossed: [2, 3] });
  });

  it('fires every action configured at the same highest threshold', () => {
    const thresholds = [
      { strikes: 2, actionId: 'remove', action: remove },
      { strikes: 2, actionId: 'ban', action: ban },
    ];
    const events = spec
      .given([])
      .when(apply('a', 2, clock.now(), { thresholds }))
      .events();
    expect(fired(events).map((e) => e.data)).toMatchObject([{ action: { id: 'remove' }, custom: { severity: 'high' } }, { action: { id: 'ban' } }]);
  });

  it('drops strikes older than the window from the count', () => {
    const start = new FixedClock(new Date('2026-01-01T00:00:00Z'));
    const history = run([apply('a', 2, start.now(), { windowDays: 30 })]);
    start.advance(29 * DAY);
    expect(strikeCount(spec.given(history).state, start.now(), 30)).toBe(2);
    start.advance(2 * DAY);
    expect(strikeCount(spec.given(history).state, start.now(), 30)).toBe(0);
    expect(
      spec
        .given(history)
        .when(apply('b', 1, start.now(), { windowDays: 30 }))
        .events()[0]!.data,
    ).toMatchObject({ countAfter: 1 });
    expect(strikeCount(spec.given(history).state, start.now(), null)).toBe(2);
  });

  it('re-arms a threshold once the count fell below it: strikes aged out, then crossing again fires again', () => {
    const start = new FixedClock(new Date('2026-01-01T00:00:00Z'));
    const options = { windowDays: 10, thresholds: at3 };
    let log = run([apply('a', 3, start.now(), options)]);
    expect(fired(log)).toHaveLength(1);
    start.advance(DAY);
    log = run([apply('b', 1, start.now(), options)], log);
    expect(fired(log)).toHaveLength(1);
    start.advance(9.5 * DAY); // 'a' aged out, 'b' not: count 1, below 3
    log = run([apply('c', 1, start.now(), options)], log);
    expect(fired(log)).toHaveLength(1);
    log = run([apply('d', 1, start.now(), options)], log);
    expect(fired(log)).toHaveLength(2);
    expect(fired(log)[1]!.data).toMatchObject({ userStrikeCount: 3 });
  });

  it('enqueues the user for an ENQUEUE_TO_MRT threshold action, with source POST_ACTIONS', () => {
    const thresholds = [{ strikes: 1, actionId: 'enqueue-to-mrt', action: { kind: 'ENQUEUE_TO_MRT' as const, body: {} } }];
    const events = spec
      .given([])
      .when(apply('a', 1, clock.now(), { thresholds }))
      .events();
    expect(events[2]).toEqual({
      type: 'ReviewEnqueueRequested',
      data: {
        jobId: expect.any(String),
        item: { id: 'u1', typeId: 'user', typeName: 'User' },
        version: 2,
        queueId: 'default',
        source: 'POST_ACTIONS',
        actionId: 'enqueue-to-mrt',
        policies: [],
        rules: [],
        environment: 'LIVE',
      },
    });
  });

  it("records a crossing without firing when the threshold's action is gone from the catalog", () => {
    const events = spec
      .given([])
      .when(apply('a', 3, clock.now(), { thresholds: [{ strikes: 3, actionId: 'gone' }] }))
      .events();
    expect(types(events)).toEqual(['UserStrikesApplied', 'UserStrikeThresholdCrossed']);
  });

  it("derives the firing's ids from the application: deciding it again gives the same ids", () => {
    const first = spec
      .given([])
      .when(apply('a', 3, clock.now(), { thresholds: at3 }))
      .events();
    const again = spec
      .given([])
      .when(apply('a', 3, clock.now(), { thresholds: at3 }))
      .events();
    expect(first[2]!.data).toEqual(again[2]!.data);
    const other = spec
      .given([])
      .when(apply('b', 3, clock.now(), { thresholds: at3 }))
      .events();
    expect((other[2]!.data as { deliveryId: string }).deliveryId).not.toBe((first[2]!.data as { deliveryId: string }).deliveryId);
  });

  it('records a crossing counted more than a day after its action without firing it (an upgrade counting past actions, a long outage)', () => {
    const history = run([apply('a', 2, clock.now(), { thresholds: at3 })]);
    const late = spec
      .given(history)
      .when(apply('b', 1, clock.now(), { thresholds: at3, countedLaterBy: DAY + 1 }))
      .events();
    expect(types(late)).toEqual(['UserStrikesApplied', 'UserStrikeThresholdCrossed']);
    expect(late[1]!.data).toMatchObject({ strikes: 3, notFired: { ban: 'late' } });
    const inTime = spec
      .given(history)
      .when(apply('b', 1, clock.now(), { thresholds: at3, countedLaterBy: DAY - 1 }))
      .events();
    expect(types(inTime)).toEqual(['UserStrikesApplied', 'UserStrikeThresholdCrossed', 'ActionCallbackRequested']);
    expect(inTime[1]!.data).not.toHaveProperty('notFired');
  });

  it('counts the window from when the action happened, not from when it is counted', () => {
    const start = new Date('2026-01-01T00:00:00Z');
    const history = run([apply('a', 2, start, { windowDays: 30 })]);
    // Counted 40 days late, 'b' happened 10 days after 'a': inside the window.
    const b = spec
      .given(history)
      .when(apply('b', 1, new Date(start.getTime() + 10 * DAY), { windowDays: 30, countedLaterBy: 30 * DAY }))
      .events();
    expect(b[0]!.data).toMatchObject({ countAfter: 3, appliedAt: new Date(start.getTime() + 10 * DAY).toISOString() });
  });
});

describe('user strikes decider: reversal by an accepted appeal', () => {
  const t0 = new Date('2026-03-01T12:00:00Z');
  const at3 = [{ strikes: 3, actionId: 'ban', action: ban }];
  const reverseRemove = (appealId: string, itemId: string, actionIds = ['remove']): ReverseUserActions => ({
    type: 'ReverseUserActions',
    appealId,
    user: { id: 'u1', typeId: 'user' },
    item: { id: itemId, typeId: 'post' },
    actionIds,
    earlier: [],
    at: t0.toISOString(),
    windowDays: null,
  });

  it("takes the appealed actions' strikes on the item out of the count, once per appeal", () => {
    const history = run([apply('a', 1, t0, { itemId: 'p1' }), apply('b', 2, t0, { itemId: 'p1', actionId: 'suspend' }), apply('c', 1, t0, { itemId: 'p2' })]);
    const events = spec.given(history).when(reverseRemove('ap-1', 'p1')).events();
    expect(events).toEqual([
      {
        type: 'UserActionsReversed',
        data: {
          appealId: 'ap-1',
          user: { id: 'u1', typeId: 'user' },
          item: { id: 'p1', typeId: 'post' },
          actionIds: ['remove'],
          keys: ['a'],
          strikes: 1,
          countAfter: 3,
          reversedAt: t0.toISOString(),
        },
      },
    ]);
    const after = [...history, ...events];
    expect(strikeCount(spec.given(after).state, t0, null)).toBe(3);
    spec.given(after).when(reverseRemove('ap-1', 'p1')).thenNothing();
    // The reversed application is never applied again under its key (a redelivered action).
    spec
      .given(after)
      .when(apply('a', 1, t0, { itemId: 'p1' }))
      .thenNothing();
  });

  it('records the reversal of actions that applied no strikes (the score still moves)', () => {
    const events = spec.given([]).when(reverseRemove('ap-2', 'p9')).events();
    expect(events).toEqual([{ type: 'UserActionsReversed', data: expect.objectContaining({ keys: [], strikes: 0, countAfter: 0 }) }]);
  });

  it('re-arms a threshold the reversed strikes had crossed: crossing it again fires again', () => {
    let log = run([apply('a', 1, t0, { itemId: 'p1', thresholds: at3 }), apply('b', 1, t0, { thresholds: at3 }), apply('c', 1, t0, { thresholds: at3 })]);
    expect(fired(log)).toHaveLength(1);
    log = run([reverseRemove('ap-3', 'p1')], log);
    expect(strikeCount(spec.given(log).state, t0, null)).toBe(2);
    log = run([apply('d', 1, t0, { thresholds: at3 })], log);
    expect(fired(log)).toHaveLength(2);
  });
});

describe('user strikes decider: a bounded state however many applications', () => {
  const t0 = new Date('2026-03-01T00:00:00Z');
  /** n applications of one strike each, `apart` ms apart, folded one after the other. */
  const fold = (n: number, apart = 1000, from = 0) => {
    let state = userStrikesDecider.initialState;
    const events: UserStrikesApplied[] = [];
    for (let i = from; i < from + n; i++) {
      const decided = userStrikesDecider.decide(apply(`k${i}`, 1, new Date(t0.getTime() + i * apart)), state);
      for (const e of decided) state = userStrikesDecider.evolve(state, e);
      events.push(decided[0] as UserStrikesApplied);
    }
    return { state, events };
  };

  it('holds the newest applications one by one and sums the older ones: the count is unchanged', () => {
    const { state } = fold(RECENT_APPLICATIONS * 4);
    expect(state.applications.size).toBe(RECENT_APPLICATIONS);
    expect(state.earlier.count).toBe(RECENT_APPLICATIONS * 3);
    expect(strikeCount(state, new Date(t0.getTime() + DAY), null)).toBe(RECENT_APPLICATIONS * 4);
    // countAfter keeps counting every application, held or summed.
    expect(state.applications.get(`k${RECENT_APPLICATIONS * 4 - 1}`)!.countAfter).toBe(RECENT_APPLICATIONS * 4);
  });

  it('counts an older application once: its key is remembered after it left the applications held', () => {
    const { state } = fold(RECENT_APPLICATIONS + 10);
    expect(state.applications.has('k0')).toBe(false);
    expect(userStrikesDecider.decide(apply('k0', 1, t0), state)).toEqual([]);
  });

  it('remembers two generations of older keys, no more: the state stays bounded', () => {
    const { state } = fold(RECENT_APPLICATIONS + KEY_GENERATION * 3, 10);
    const [newest, previous] = state.earlier.keys;
    expect(newest.size + previous.size).toBeLessThanOrEqual(KEY_GENERATION * 2);
    expect(state.earlier.strikesByDay.size).toBe(1);
  });

  it('ages older applications out of the window by their day: a day reaching into the window counts whole', () => {
    // One application an hour for 20 days: only the newest 256 (about 10.7 days) are held by themselves.
    const { state } = fold(480, 3_600_000);
    const end = new Date(t0.getTime() + 480 * 3_600_000);
    const exact = Array.from({ length: 480 }, (_, i) => t0.getTime() + i * 3_600_000).filter((at) => at > end.getTime() - 15 * DAY).length;
    const counted = strikeCount(state, end, 15);
    // Exact for the held ones; the oldest day in the window is counted whole (at most a day's worth more).
    expect(counted).toBeGreaterThanOrEqual(exact);
    expect(counted - exact).toBeLessThan(24);
    // Within the newest applications held, exact: the 23 actions after end - 24 h.
    expect(strikeCount(state, end, 1)).toBe(23);
  });

  it('tells whether a recorded application counts, also one the state no longer holds', () => {
    const { state, events } = fold(RECENT_APPLICATIONS + 5, DAY);
    const oldest = events[0]!.data;
    const now = new Date(t0.getTime() + (RECENT_APPLICATIONS + 5) * DAY);
    expect(isCountingApplied(state, oldest, now, null)).toBe(true);
    expect(isCountingApplied(state, oldest, now, 30)).toBe(false);
  });

  it('reverses older applications the handler read from the stream, once', () => {
    const { state, events } = fold(RECENT_APPLICATIONS + 5);
    const old = events[1]!.data;
    const reversal: ReverseUserActions = {
      type: 'ReverseUserActions',
      appealId: 'appeal-1',
      user: { id: 'u1', typeId: 'user' },
      item: old.item,
      actionIds: ['remove'],
      earlier: [{ key: old.key, strikes: old.strikes, appliedAt: old.appliedAt, actionId: old.action.id, item: old.item }],
      at: new Date(t0.getTime() + DAY).toISOString(),
      windowDays: null,
    };
    const [reversed] = userStrikesDecider.decide(reversal, state);
    expect(reversed!.data).toMatchObject({ keys: [old.key], strikes: 1, countAfter: RECENT_APPLICATIONS + 4 });
    const after = userStrikesDecider.evolve(state, reversed!);
    expect(strikeCount(after, new Date(t0.getTime() + DAY), null)).toBe(RECENT_APPLICATIONS + 4);
    expect(isCountingApplied(after, old, new Date(t0.getTime() + DAY), null)).toBe(false);
    // Another appeal naming the same application takes nothing out again.
    const [again] = userStrikesDecider.decide({ ...reversal, appealId: 'appeal-2' }, after);
    expect(again!.data).toMatchObject({ keys: [], strikes: 0, countAfter: RECENT_APPLICATIONS + 4 });
  });

  it('snapshots to JSON and back to the same state', () => {
    const { state } = fold(RECENT_APPLICATIONS + 50);
    const policy = userStrikesDecider.snapshot!;
    const json = JSON.parse(JSON.stringify(policy.encode(state)));
    const back: UserStrikesState = policy.decode(json);
    expect(back).toEqual(state);
    expect(strikeCount(back, new Date(t0.getTime() + DAY), 1)).toBe(strikeCount(state, new Date(t0.getTime() + DAY), 1));
  });
});
