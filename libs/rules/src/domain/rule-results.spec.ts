import { describe, expect, it } from 'vitest';
import { BUILTIN_ACTION_IDS, type RuleDefinition } from '#warden/catalog/contracts';
import type { Environment } from './evaluation.events.js';
import type { SetEvaluation } from './evaluation.model.js';
import { capsToDecide, completeEvaluation, type DraftEvaluation, ruleResults } from './rule-results.js';

/**
 * The pure part of an evaluation (docs/rules.md, "Actions"): given the condition sets' outcomes,
 * when the daily caps are decided, then only uncapped passed publishing rules contribute actions.
 */

const rule = (id: string, overrides: Partial<RuleDefinition> = {}): RuleDefinition => ({
  id,
  name: id.toUpperCase(),
  status: 'LIVE',
  itemTypeIds: [],
  tags: [],
  maxDailyActions: null,
  expiresAt: null,
  actionIds: [BUILTIN_ACTION_IDS.mrt],
  policyIds: [],
  conditionSet: { conjunction: 'AND', conditions: [] },
  ...overrides,
});

const passed: SetEvaluation = { outcome: 'passed', conditions: [{ path: 'conditions[0]', outcome: 'passed', value: 'the text a user wrote' }] };
const failed: SetEvaluation = { outcome: 'failed', conditions: [] };

function draft(rules: RuleDefinition[], sets: SetEvaluation[], environment: Environment = 'LIVE'): DraftEvaluation {
  const results = ruleResults(rules, sets);
  const rulesById = new Map(rules.map((r) => [r.id, r] as const));
  return {
    item: { id: 'p1', typeId: 'post', typeName: 'Post' },
    version: 0,
    environment,
    subject: 'user:u1',
    rules: results,
    rulesById,
    actions: new Map(),
    policies: new Map(),
    caps: capsToDecide(results, rulesById, environment),
  };
}

describe('rule results', () => {
  it('keep no raw input of a condition, and name the definition evaluated', () => {
    const [result] = ruleResults([rule('r1')], [passed]);
    expect(result!.conditions).toEqual([{ path: 'conditions[0]', outcome: 'passed' }]);
    expect(result!.definition).toMatch(/^[\w-]+$/);
    expect(result!.capped).toBe(false);
  });

  it('ask for the cap of a live passed rule with maxDailyActions and actions only', () => {
    const rules = [
      rule('capped', { maxDailyActions: 5 }),
      rule('uncapped'),
      rule('failing', { maxDailyActions: 5 }),
      rule('background', { maxDailyActions: 5, status: 'BACKGROUND' }),
      rule('no-actions', { maxDailyActions: 5, actionIds: [] }),
    ];
    const sets = [passed, passed, failed, passed, passed];
    expect(draft(rules, sets).caps).toEqual([{ ruleId: 'capped', maxDailyActions: 5 }]);
    expect(draft(rules, sets, 'RETROACTION').caps).toEqual([]);
  });

  it('publish the actions of the uncapped passed rules once the caps are decided', () => {
    const d = draft([rule('a', { maxDailyActions: 1 }), rule('b', { maxDailyActions: 1, actionIds: [BUILTIN_ACTION_IDS.childSafety] })], [passed, passed]);
    const evaluation = completeEvaluation(d, new Set(['b']));
    expect(evaluation.rules.map((r) => [r.id, r.capped])).toEqual([
      ['a', false],
      ['b', true],
    ]);
    expect(evaluation.actions.map((a) => a.kind)).toEqual(['ENQUEUE_TO_MRT']);
    expect(d.rules.every((r) => !r.capped)).toBe(true);
  });
});
