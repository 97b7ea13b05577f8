import { describe, expect, it } from 'vitest';
import { DEFAULT_SCORE_SETTINGS, type Penalty } from '#warden/catalog/contracts';
import {
  MAX_ACTION_KEYS,
  MAX_REVERSED_KEYS,
  actionedCount,
  type ItemActions,
  itemPenalty,
  scoreForRatio,
  userScore,
  type UserScoreFacts,
  withAction,
  withItemChange,
  withoutAction,
} from './user-score.js';

const weights = DEFAULT_SCORE_SETTINGS.penaltyWeights;
const penaltyOf: Record<string, Penalty> = { remove: 'MEDIUM', ban: 'SEVERE', label: 'NONE' };
const actionPenalty = (id: string) => penaltyOf[id] ?? 'NONE';
const empty: UserScoreFacts = { submissions: 0, actionedBy: {} };
const none: ItemActions = { actions: [] };
/** The user's counts after one more item actioned as `actions` say. */
const actionedAs = (facts: UserScoreFacts, item: ItemActions) => withItemChange(facts, [], item.actions);

describe('user score', () => {
  it('maps the ratio to 5..1 at the default thresholds, bounds inclusive', () => {
    const t = DEFAULT_SCORE_SETTINGS.thresholds;
    expect([0, 0.01, 0.0100001, 0.05, 0.06, 0.1, 0.2, 0.25, 0.26, 9].map((r) => scoreForRatio(r, t))).toEqual([5, 5, 4, 4, 3, 3, 2, 2, 1, 1]);
  });

  it('counts an item once, at its most severe (action, policy) pair; an action of penalty NONE counts 0', () => {
    const item = {
      actions: [
        { actionId: 'remove', policyPenalties: ['LOW', 'HIGH'] as Penalty[] },
        { actionId: 'label', policyPenalties: ['SEVERE'] as Penalty[] },
      ],
    };
    expect(itemPenalty(item, actionPenalty, weights)).toBe(3 + 9);
    expect(itemPenalty({ actions: [{ actionId: 'ban', policyPenalties: [] }] }, actionPenalty, weights)).toBe(27);
    expect(itemPenalty({ actions: [{ actionId: 'label', policyPenalties: ['SEVERE'] }] }, actionPenalty, weights)).toBe(0);
  });

  it('scores points per submission; never seen or no submissions: 5; actioned items count as submissions', () => {
    expect(userScore(undefined, DEFAULT_SCORE_SETTINGS, actionPenalty)).toBe(5);
    expect(userScore({ submissions: 10, actionedBy: {} }, DEFAULT_SCORE_SETTINGS, actionPenalty)).toBe(5);
    const one = actionedAs({ ...empty, submissions: 100 }, withAction(none, { actionId: 'remove', policyPenalties: ['LOW'] }));
    expect(userScore(one, DEFAULT_SCORE_SETTINGS, actionPenalty)).toBe(4); // 4 / 100
    expect(userScore({ ...one, submissions: 50 }, DEFAULT_SCORE_SETTINGS, actionPenalty)).toBe(3); // 4 / 50
    expect(userScore({ ...one, submissions: 20 }, DEFAULT_SCORE_SETTINGS, actionPenalty)).toBe(2); // 4 / 20
    expect(userScore({ ...one, submissions: 0 }, DEFAULT_SCORE_SETTINGS, actionPenalty)).toBe(1); // 4 / 1
  });

  it('applies the weights and thresholds in force', () => {
    const facts = actionedAs({ ...empty, submissions: 100 }, withAction(none, { actionId: 'remove', policyPenalties: ['LOW'] }));
    const lenient = { ...DEFAULT_SCORE_SETTINGS, thresholds: [0.05, 0.1, 0.2, 0.3] as [number, number, number, number] };
    expect(userScore(facts, lenient, actionPenalty)).toBe(5);
    const harsh = { ...DEFAULT_SCORE_SETTINGS, penaltyWeights: { ...weights, MEDIUM: 30 } };
    expect(userScore(facts, harsh, actionPenalty)).toBe(1); // 31 / 100
  });

  it('records an action on an item as a set: again, or from another rule, changes nothing', () => {
    const once = withAction(none, { actionId: 'remove', policyPenalties: ['LOW'] });
    expect(withAction(once, { actionId: 'remove', policyPenalties: ['LOW'] })).toBe(once);
    const more = withAction(once, { actionId: 'remove', policyPenalties: ['HIGH', 'LOW'] });
    expect(more.actions).toEqual([{ actionId: 'remove', policyPenalties: ['HIGH', 'LOW'] }]);
  });

  it("keeps an action's newest publication keys only, and the newest reversed ones: an item re-published all day stays one small document", () => {
    let item = none;
    for (let i = 0; i < MAX_ACTION_KEYS + 500; i++) item = withAction(item, { actionId: 'remove', policyPenalties: ['LOW'], keys: [`k${i}`] });
    const keys = item.actions[0]!.keys!;
    expect(keys).toHaveLength(MAX_ACTION_KEYS);
    expect([keys[0], keys.at(-1)]).toEqual(['k500', `k${MAX_ACTION_KEYS + 499}`]);
    // A key already kept changes nothing.
    expect(withAction(item, { actionId: 'remove', policyPenalties: ['LOW'], keys: ['k900'] })).toBe(item);
    // Reversed: a recent publication re-sent stays out; one older than what was kept counts again.
    const reversed = withoutAction(item, 'remove');
    expect(reversed.reversedKeys).toHaveLength(MAX_ACTION_KEYS);
    expect(withAction(reversed, { actionId: 'remove', policyPenalties: ['LOW'], keys: ['k900'] })).toBe(reversed);
    expect(withAction(reversed, { actionId: 'remove', policyPenalties: ['LOW'], keys: ['k3'] }).actions).toHaveLength(1);
    let again = reversed;
    for (let round = 0; round < 5; round++) {
      for (let i = 0; i < MAX_ACTION_KEYS; i++) again = withAction(again, { actionId: 'remove', policyPenalties: ['LOW'], keys: [`r${round}-${i}`] });
      again = withoutAction(again, 'remove');
    }
    expect(again.reversedKeys).toHaveLength(MAX_REVERSED_KEYS);
  });

  it('reverses an action: the item stops counting once no action is left on it', () => {
    const two = withAction(withAction(none, { actionId: 'remove', policyPenalties: ['LOW'] }), { actionId: 'ban', policyPenalties: [] });
    const oneLeft = withoutAction(two, 'ban');
    expect(oneLeft.actions).toEqual([{ actionId: 'remove', policyPenalties: ['LOW'] }]);
    expect(withoutAction(oneLeft, 'remove').actions).toEqual([]);
    expect(withoutAction(oneLeft, 'ban')).toBe(oneLeft);
    const counted = withItemChange(withItemChange(empty, [], two.actions), two.actions, oneLeft.actions);
    expect(actionedCount(counted)).toBe(1);
    expect(actionedCount(withItemChange(counted, oneLeft.actions, []))).toBe(0);
  });

  it('counts items by what was done to them: as many entries as combinations, however many items', () => {
    let facts = { ...empty, submissions: 10_000 };
    const removed = withAction(none, { actionId: 'remove', policyPenalties: ['LOW'], keys: ['k'] });
    const banned = withAction(removed, { actionId: 'ban', policyPenalties: [] });
    for (let i = 0; i < 5_000; i++) facts = withItemChange(facts, [], (i % 2 === 0 ? removed : banned).actions);
    expect(Object.keys(facts.actionedBy)).toHaveLength(2);
    expect(actionedCount(facts)).toBe(5_000);
    // 2,500 × 4 (MEDIUM + LOW) + 2,500 × 27 (SEVERE, no policy) over 10,000 submissions: 7.75 a submission.
    expect(userScore(facts, DEFAULT_SCORE_SETTINGS, actionPenalty)).toBe(scoreForRatio(7.75, DEFAULT_SCORE_SETTINGS.thresholds));
  });
});
