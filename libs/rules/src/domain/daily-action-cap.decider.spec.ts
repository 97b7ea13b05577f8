import { describe, expect, it } from 'vitest';
import { foldEvents } from '#warden/kernel';
import {
  COUNTED_KEYS_GENERATION,
  type CountDailyAction,
  dailyActionCapDecider,
  type DailyActionCapEvent,
  DailyActionCapReached,
} from './daily-action-cap.decider.js';

/** Contents are digests (item-content.ts); any distinct strings do here. */
const count = (itemId: string, version = 0, max = 2, content = `content-of-${itemId}-${version}`): CountDailyAction => ({
  type: 'CountDailyAction',
  ruleId: 'r1',
  item: { id: itemId, typeId: 'post' },
  version,
  content,
  max,
});

const counted = (itemId: string, version = 0, content: string | null = `content-of-${itemId}-${version}`): DailyActionCapEvent => ({
  type: 'RuleDailyActionCounted',
  data: { ruleId: 'r1', item: { id: itemId, typeId: 'post' }, version, content },
});

/** Given events, when a command, then the events it decides (or the refusal it throws). */
function given(events: DailyActionCapEvent[]) {
  const state = foldEvents(dailyActionCapDecider, events);
  return { state, when: (command: CountDailyAction) => dailyActionCapDecider.decide(command, state) };
}

describe('daily action cap decider', () => {
  it('counts an item while the rule is under its cap', () => {
    expect(given([]).when(count('p1'))).toEqual([counted('p1')]);
    expect(given([counted('p1')]).when(count('p2'))).toEqual([counted('p2')]);
    expect(given([counted('p1'), counted('p2')]).state.count).toBe(2);
  });

  it('refuses an item once the rule acted on its maximum today', () => {
    expect(() => given([counted('p1'), counted('p2')]).when(count('p3'))).toThrow(DailyActionCapReached);
    expect(() => given([counted('p1')]).when(count('p3', 0, 1))).toThrow(/Rule r1 already acted on 1 items today/);
  });

  it('counts an item content once: counting it again (a re-run) decides nothing, even at the cap', () => {
    expect(given([counted('p1')]).when(count('p1'))).toEqual([]);
    expect(given([counted('p1'), counted('p2')]).when(count('p1'))).toEqual([]);
  });

  it('tells versions and item types apart', () => {
    expect(given([counted('p1', 0)]).when(count('p1', 1))).toEqual([counted('p1', 1)]);
    expect(given([counted('p1')]).when({ ...count('p1'), item: { id: 'p1', typeId: 'comment' } })).toHaveLength(1);
    // Ids that would run together if joined with a separator stay apart.
    const odd: DailyActionCapEvent = { type: 'RuleDailyActionCounted', data: { ruleId: 'r1', item: { id: 'b', typeId: 'a:' }, version: 0, content: 'c' } };
    expect(given([odd]).when({ ...count('', 0, 2, 'c'), item: { id: ':b', typeId: 'a' } })).toHaveLength(1);
  });

  it('counts identical content once: a re-submission in a new version takes no second slot, even at the cap', () => {
    expect(given([counted('p1', 0, 'same')]).when(count('p1', 1, 2, 'same'))).toEqual([]);
    expect(given([counted('p1', 0, 'same'), counted('p2')]).when(count('p1', 1, 2, 'same'))).toEqual([]);
    // Changed content is another action on the item: counted, or refused at the cap.
    expect(given([counted('p1', 0, 'same')]).when(count('p1', 1, 2, 'edited'))).toEqual([counted('p1', 1, 'edited')]);
    expect(() => given([counted('p1', 0, 'same'), counted('p2')]).when(count('p1', 1, 2, 'edited'))).toThrow(DailyActionCapReached);
  });

  it('reads counts recorded before contents were (v1: content null) as counts of versions', () => {
    const v1 = counted('p1', 0, null);
    expect(given([v1]).state.count).toBe(1);
    expect(given([v1]).when(count('p1', 1))).toEqual([counted('p1', 1)]);
    expect(() => given([v1, counted('p2')]).when(count('p3'))).toThrow(DailyActionCapReached);
  });
});

describe('daily action cap decider: a bounded state however busy the day', () => {
  const fill = (n: number) => {
    let state = dailyActionCapDecider.initialState;
    for (let i = 0; i < n; i++) for (const e of dailyActionCapDecider.decide(count(`p${i}`, 0, 1_000_000), state)) state = dailyActionCapDecider.evolve(state, e);
    return state;
  };

  it('keeps the count and two generations of keys, not every key of the day', () => {
    const state = fill(COUNTED_KEYS_GENERATION * 5 + 3);
    expect(state.count).toBe(COUNTED_KEYS_GENERATION * 5 + 3);
    expect(state.keys[0].size + state.keys[1].size).toBeLessThanOrEqual(COUNTED_KEYS_GENERATION * 2);
    // The newest counts are still known: a re-run of one decides nothing.
    expect(dailyActionCapDecider.decide(count(`p${COUNTED_KEYS_GENERATION * 5}`, 0, 1_000_000), state)).toEqual([]);
  });

  it('snapshots to JSON and back to the same state', () => {
    const state = fill(COUNTED_KEYS_GENERATION + 10);
    const policy = dailyActionCapDecider.snapshot!;
    expect(policy.decode(JSON.parse(JSON.stringify(policy.encode(state))))).toEqual(state);
  });
});
