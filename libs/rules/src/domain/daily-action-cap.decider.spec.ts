import { describe, expect, it } from 'vitest';
import { foldEvents } from '#warden/kernel';
import {
  type CountDailyAction,
  dailyActionCapDecider,
  type DailyActionCapEvent,
  DailyActionCapReached,
} from './daily-action-cap.decider.js';

const count = (itemId: string, version = 0, max = 2): CountDailyAction => ({
  type: 'CountDailyAction',
  ruleId: 'r1',
  item: { id: itemId, typeId: 'post' },
  version,
  max,
});

const counted = (itemId: string, version = 0): DailyActionCapEvent => ({
  type: 'RuleDailyActionCounted',
  data: { ruleId: 'r1', item: { id: itemId, typeId: 'post' }, version },
});

/** Given events, when a command, then the events it decides (or the refusal it throws). */
function given(events: DailyActionCapEvent[]) {
  const state = foldEvents(dailyActionCapDecider, events);
  return { state, when: (command: CountDailyAction) => dailyActionCapDecider.decide(command, state) };
}

describe('daily action cap decider', () => {
  it('counts an item version while the rule is under its cap', () => {
    expect(given([]).when(count('p1'))).toEqual([counted('p1')]);
    expect(given([counted('p1')]).when(count('p2'))).toEqual([counted('p2')]);
    expect(given([counted('p1'), counted('p2')]).state.count).toBe(2);
  });

  it('refuses an item once the rule acted on its maximum today', () => {
    expect(() => given([counted('p1'), counted('p2')]).when(count('p3'))).toThrow(DailyActionCapReached);
    expect(() => given([counted('p1')]).when(count('p3', 0, 1))).toThrow(/Rule r1 already acted on 1 items today/);
  });

  it('counts an item version once: counting it again decides nothing, even at the cap', () => {
    expect(given([counted('p1')]).when(count('p1'))).toEqual([]);
    expect(given([counted('p1'), counted('p2')]).when(count('p1'))).toEqual([]);
  });

  it('tells versions and item types apart', () => {
    expect(given([counted('p1', 0)]).when(count('p1', 1))).toEqual([counted('p1', 1)]);
    expect(given([counted('p1')]).when({ ...count('p1'), item: { id: 'p1', typeId: 'comment' } })).toHaveLength(1);
    // Ids that would run together if joined with a separator stay apart.
    const odd: DailyActionCapEvent = { type: 'RuleDailyActionCounted', data: { ruleId: 'r1', item: { id: 'b', typeId: 'a:' }, version: 0 } };
    expect(given([odd]).when({ ...count('', 0), item: { id: ':b', typeId: 'a' } })).toHaveLength(1);
  });
});
