import { describe, expect, it } from 'vitest';
import { decodeEvaluation, encodeEvaluation, type Evaluation, type RuleResult } from './evaluation.events.js';
import type { ConditionRecord } from './evaluation.model.js';

const rule = (id: string, conditions: ConditionRecord[], extra: Partial<RuleResult> = {}): RuleResult => ({
  id,
  name: `Rule ${id}`,
  status: 'LIVE',
  outcome: 'passed',
  capped: false,
  conditions,
  ...extra,
});

const evaluation = (rules: RuleResult[]): Evaluation => ({
  item: { id: 'i1', typeId: 'post', typeName: 'Post' },
  version: 2,
  environment: 'LIVE',
  subject: 'post:i1',
  rules,
  actions: [{ id: 'review', kind: 'ENQUEUE_TO_MRT', policies: [], rules: [{ id: 'r1', name: 'Rule r1' }] }],
});

describe('the stored form of an evaluation', () => {
  const everyShape: ConditionRecord[] = [
    { path: '', outcome: 'passed' },
    { path: 'conditions[0]', outcome: 'failed', value: false },
    { path: 'conditions[1]', outcome: 'passed', value: true, detail: { bankId: 'spam', distance: 3 } },
    { path: 'conditions[1].conditions[12]', outcome: 'skipped' },
    { path: 'conditions[2]', outcome: 'unknown', error: 'signal HTTP_SIGNAL timed out' },
    { path: 'conditions[3]', outcome: 'failed', value: null },
    { path: 'conditions[4]', outcome: 'passed', value: 7.5 },
    { path: 'conditions[5]', outcome: 'unknown', detail: { reason: 'no image' } },
  ];

  it('round-trips every condition record shape, capped or not', () => {
    const original = evaluation([rule('r1', everyShape), rule('r2', everyShape.slice(0, 2), { capped: true, outcome: 'passed' })]);
    const stored = JSON.parse(JSON.stringify(encodeEvaluation(original))) as ReturnType<typeof encodeEvaluation>;
    expect(decodeEvaluation(stored)).toEqual(original);
  });

  it('writes the usual records as short tuples and keeps unusual ones whole', () => {
    const stored = encodeEvaluation(evaluation([rule('r1', everyShape)]));
    expect(stored.rules[0]!.conditions).toEqual([
      ['', 'passed'],
      ['0', 'failed', false],
      ['1', 'passed', true, { bankId: 'spam', distance: 3 }],
      ['1.12', 'skipped'],
      { path: 'conditions[2]', outcome: 'unknown', error: 'signal HTTP_SIGNAL timed out' },
      ['3', 'failed', null],
      ['4', 'passed', 7.5],
      { path: 'conditions[5]', outcome: 'unknown', detail: { reason: 'no image' } },
    ]);
    expect(stored.rules[0]).not.toHaveProperty('capped');
  });

  it('reads evaluations recorded in the plain form before the compact one', () => {
    const plain = evaluation([rule('r1', everyShape), rule('r2', [], { capped: true })]);
    expect(decodeEvaluation(plain as unknown as ReturnType<typeof encodeEvaluation>)).toEqual(plain);
  });

  it('takes well under half the bytes of the plain form for text rules', () => {
    const conditions: ConditionRecord[] = [
      { path: 'conditions[0]', outcome: 'failed', value: false },
      { path: 'conditions[1]', outcome: 'skipped' },
      { path: 'conditions[2]', outcome: 'passed', value: true, detail: { bankId: 'spam' } },
    ];
    const plain = evaluation(Array.from({ length: 20 }, (_, i) => rule(`r${i}`, conditions)));
    const compact = JSON.stringify(encodeEvaluation(plain)).length;
    expect(compact / JSON.stringify(plain).length).toBeLessThan(0.6);
  });
});
