import { describe, expect, it } from 'vitest';
import { deciderSpecification } from '#warden/kernel';
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

const spec = deciderSpecification(dailyActionCapDecider);

describe('daily action cap decider', () => {
  it('counts an item while the rule is under its cap', () => {
    spec
      .given([])
      .when(count('p1'))
      .then([counted('p1')]);
    spec
      .given([counted('p1')])
      .when(count('p2'))
      .then([counted('p2')]);
    expect(spec.given([counted('p1'), counted('p2')]).state.count).toBe(2);
  });

  it('refuses an item once the rule acted on its maximum today', () => {
    spec
      .given([counted('p1'), counted('p2')])
      .when(count('p3'))
      .thenThrows(DailyActionCapReached);
    spec
      .given([counted('p1')])
      .when(count('p3', 0, 1))
      .thenThrows(/Rule r1 already acted on 1 items today/);
  });

  it('counts an item content once: counting it again (a re-run) decides nothing, even at the cap', () => {
    spec
      .given([counted('p1')])
      .when(count('p1'))
      .thenNothing();
    spec
      .given([counted('p1'), counted('p2')])
      .when(count('p1'))
      .thenNothing();
  });

  it('tells versions and item types apart', () => {
    spec
      .given([counted('p1', 0)])
      .when(count('p1', 1))
      .then([counted('p1', 1)]);
    expect(
      spec
        .given([counted('p1')])
        .when({ ...count('p1'), item: { id: 'p1', typeId: 'comment' } })
        .events(),
    ).toHaveLength(1);
    // Ids that would run together if joined with a separator stay apart.
    const odd: DailyActionCapEvent = { type: 'RuleDailyActionCounted', data: { ruleId: 'r1', item: { id: 'b', typeId: 'a:' }, version: 0, content: 'c' } };
    expect(
      spec
        .given([odd])
        .when({ ...count('', 0, 2, 'c'), item: { id: ':b', typeId: 'a' } })
        .events(),
    ).toHaveLength(1);
  });

  it('counts identical content once: a re-submission in a new version takes no second slot, even at the cap', () => {
    spec
      .given([counted('p1', 0, 'same')])
      .when(count('p1', 1, 2, 'same'))
      .thenNothing();
    spec
      .given([counted('p1', 0, 'same'), counted('p2')])
      .when(count('p1', 1, 2, 'same'))
      .thenNothing();
    // Changed content is another action on the item: counted, or refused at the cap.
    spec
      .given([counted('p1', 0, 'same')])
      .when(count('p1', 1, 2, 'edited'))
      .then([counted('p1', 1, 'edited')]);
    spec
      .given([counted('p1', 0, 'same'), counted('p2')])
      .when(count('p1', 1, 2, 'edited'))
      .thenThrows(DailyActionCapReached);
  });

  it('reads counts recorded before contents were (v1: content null) as counts of versions', () => {
    const v1 = counted('p1', 0, null);
    expect(spec.given([v1]).state.count).toBe(1);
    spec
      .given([v1])
      .when(count('p1', 1))
      .then([counted('p1', 1)]);
    spec
      .given([v1, counted('p2')])
      .when(count('p3'))
      .thenThrows(DailyActionCapReached);
  });
});

describe('daily action cap decider: a bounded state however busy the day', () => {
  const fill = (n: number) => {
    let state = dailyActionCapDecider.initialState;
    for (let i = 0; i < n; i++)
      for (const e of dailyActionCapDecider.decide(count(`p${i}`, 0, 1_000_000), state)) state = dailyActionCapDecider.evolve(state, e);
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
