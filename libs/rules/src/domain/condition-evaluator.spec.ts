import { describe, expect, it, vi } from 'vitest';
import type {
  Comparator,
  ConditionInput,
  ConditionSet,
  FieldDefinition,
  FieldType,
  ItemTypeDefinition,
  LeafCondition,
  SignalType,
} from '#warden/catalog/contracts';
import { evaluateConditionSet, type EvaluatorDeps } from './condition-evaluator.js';
import { conditionCost } from './condition-plan.js';
import type { EvaluatedItem, Outcome, Signal, SignalContext } from './evaluation.model.js';
import { SignalMemo } from './signal-memo.js';
import { creatorSubmissionCountSignal } from './signals/creator-submission-count.signal.js';
import { SignalRegistry } from './signal-registry.js';

function field(name: string, type: FieldType, array = false): FieldDefinition {
  return { name, type, required: false, array, itemTypeIds: [] };
}

const postType: ItemTypeDefinition = {
  id: 'post',
  name: 'Post',
  kind: 'CONTENT',
  version: null,
  fields: [
    field('title', 'STRING'),
    field('text', 'STRING'),
    field('tags', 'STRING', true),
    field('likes', 'NUMBER'),
    field('scores', 'NUMBER', true),
    field('photo', 'IMAGE'),
    field('gallery', 'IMAGE', true),
    field('createdAt', 'DATETIME'),
    field('author', 'RELATED_ITEM'),
    field('meta', 'STRING'),
  ],
  roles: { creator: 'author' },
};

function item(data: { [field: string]: unknown }, overrides: Partial<EvaluatedItem> = {}): EvaluatedItem {
  return {
    orgId: 'acme',
    id: 'p1',
    typeId: 'post',
    itemType: postType,
    data,
    creator: { id: 'u1', typeId: 'user' },
    ...overrides,
  };
}

function context(evaluated: EvaluatedItem): SignalContext {
  return {
    orgId: evaluated.orgId,
    item: evaluated,
    textBank: () => undefined,
    hashBanks: [],
    creatorSubmissionCount: async () => 0,
    postJson: async () => ({ score: 0 }),
    now: () => new Date('2024-05-01T00:00:00Z'),
  };
}

function leaf(input: ConditionInput, comparator: Comparator, value?: unknown, signal?: { type: SignalType; args?: { [key: string]: unknown } }): LeafCondition {
  return { input, signal: signal ? { type: signal.type, args: signal.args ?? {} } : null, comparator, value };
}

const f = (name: string): ConditionInput => ({ field: name });

function set(conjunction: ConditionSet['conjunction'], ...conditions: Array<LeafCondition | ConditionSet>): ConditionSet {
  return { conjunction, conditions };
}

/** A signal whose result is chosen by its `args.result`: a value, or `{throw: message}`. */
function fakeSignal(type: SignalType, cost: number): Signal & { calls: unknown[] } {
  const calls: unknown[] = [];
  return {
    type,
    cost,
    inputKinds: ['any'],
    calls,
    async evaluate(input, args) {
      calls.push(input);
      const result = args.result;
      if (typeof result === 'object' && result !== null && 'throw' in result) throw new Error(String((result as { throw: unknown }).throw));
      if (result === 'echo') return input;
      return result;
    },
  };
}

function deps(...signals: Signal[]): EvaluatorDeps {
  const registry = new SignalRegistry();
  for (const signal of signals) registry.register(signal);
  return { registry, memo: new SignalMemo() };
}

async function outcomeOf(condition: LeafCondition | ConditionSet, data: { [field: string]: unknown }, d = deps(), evaluated?: EvaluatedItem): Promise<Outcome> {
  const root = 'conjunction' in condition ? condition : set('AND', condition);
  return (await evaluateConditionSet(root, context(evaluated ?? item(data)), d)).outcome;
}

/** Leaves with a fixed outcome, via a free signal: passed, failed or unknown. */
const FIXED = fakeSignal('USER_SCORE', 0);
function fixed(outcome: Outcome): LeafCondition {
  const result = outcome === 'unknown' ? { throw: 'boom' } : outcome === 'passed';
  return leaf(f('title'), 'EQUALS', true, { type: 'USER_SCORE', args: { result } });
}
const titled = { title: 'x' };

describe('comparators', () => {
  const cases: Array<[Comparator, unknown, unknown, Outcome]> = [
    ['EQUALS', 3, 3, 'passed'],
    ['EQUALS', 3, 3.0, 'passed'],
    ['EQUALS', 3, '3', 'failed'],
    ['EQUALS', 'a', 'a', 'passed'],
    ['EQUALS', { a: [1, { b: 2 }], c: 'x' }, { c: 'x', a: [1, { b: 2 }] }, 'passed'],
    ['EQUALS', { a: [1, { b: 2 }] }, { a: [1, { b: 3 }] }, 'failed'],
    ['EQUALS', { a: 1 }, { a: 1, b: 2 }, 'failed'],
    ['NOT_EQUAL_TO', 3, 4, 'passed'],
    ['NOT_EQUAL_TO', 3, 3, 'failed'],
    ['NOT_EQUAL_TO', { a: 1 }, { a: 1 }, 'failed'],
    ['LT', 2, 3, 'passed'],
    ['LT', 3, 3, 'failed'],
    ['LTE', 3, 3, 'passed'],
    ['GT', 4, 3, 'passed'],
    ['GT', 3, 3, 'failed'],
    ['GTE', 3, 3, 'passed'],
    ['GTE', 2.5, 3, 'failed'],
    ['LT', '3', 4, 'failed'],
    ['GT', 5, '2024-01-01T00:00:00Z', 'failed'],
    ['LT', 'abc', 'abd', 'failed'],
    ['LT', '2024-01-01T00:00:00Z', '2024-01-02T00:00:00Z', 'passed'],
    ['GT', '2024-01-01T10:00:00+02:00', '2024-01-01T09:00:00Z', 'failed'],
    ['LT', '2024-01-01T10:00:00+02:00', '2024-01-01T09:00:00Z', 'passed'],
    ['GTE', '2024-01-01T12:00Z', '2024-01-01', 'passed'],
    ['LTE', '2024-01-01T00:00:00.000Z', '2024-01-01T00:00:00Z', 'passed'],
    ['LT', '2024-02-30T00:00:00Z', '2025-01-01T00:00:00Z', 'failed'],
    ['CONTAINS', 'hello world', 'lo w', 'passed'],
    ['CONTAINS', 'hello world', 'Hello', 'failed'],
    ['CONTAINS', 42, '4', 'failed'],
  ];
  it.each(cases)('%s: %j vs %j → %s', async (comparator, actual, expected, outcome) => {
    expect(await outcomeOf(leaf(f('meta'), comparator, expected), { meta: actual })).toBe(outcome);
  });

  it('CONTAINS on an array value looks for an element', async () => {
    const registry = deps(fakeSignal('USER_SCORE', 1));
    const contains = (value: unknown) => leaf(f('title'), 'CONTAINS', value, { type: 'USER_SCORE', args: { result: ['a', { b: 1 }] } });
    expect(await outcomeOf(contains({ b: 1 }), titled, registry)).toBe('passed');
    expect(await outcomeOf(contains('c'), titled, registry)).toBe('failed');
  });

  // docs/rules.md, "The condition model": an array field's elements are tested one by one, so
  // CONTAINS on a text array is a substring test per element, never membership.
  it('CONTAINS on an array field is a substring test of each element; EQUALS is the membership test', async () => {
    const tags = { tags: ['spam-bot', 'ok'] };
    expect(await outcomeOf(leaf(f('tags'), 'CONTAINS', 'spam'), tags)).toBe('passed');
    expect(await outcomeOf(leaf(f('tags'), 'CONTAINS', 'Spam'), tags)).toBe('failed');
    expect(await outcomeOf(leaf(f('tags'), 'EQUALS', 'spam'), tags)).toBe('failed');
    expect(await outcomeOf(leaf(f('tags'), 'EQUALS', 'ok'), tags)).toBe('passed');
    // A datetime element is text to CONTAINS: the same instant written otherwise is not found.
    const dates = { dates: ['2026-03-01T01:00:00+01:00'] };
    expect(await outcomeOf(leaf(f('dates'), 'CONTAINS', '2026-03-01T00:00:00Z'), dates)).toBe('failed');
    expect(await outcomeOf(leaf(f('dates'), 'CONTAINS', '2026-03'), dates)).toBe('passed');
    expect(await outcomeOf(leaf(f('dates'), 'EQUALS', '2026-03-01T00:00:00Z'), dates)).toBe('passed');
    // Numbers contain nothing; an element that is an array itself is searched for an equal element.
    expect(await outcomeOf(leaf(f('scores'), 'CONTAINS', 1), { scores: [1, 12] })).toBe('failed');
    expect(await outcomeOf(leaf(f('meta'), 'CONTAINS', 'a'), { meta: [['a', 'b'], ['c']] })).toBe('passed');
    expect(await outcomeOf(leaf(f('meta'), 'CONTAINS', 'a'), { meta: [['ab'], ['c']] })).toBe('failed');
  });
});

describe('absent inputs', () => {
  const absentValues: Array<[string, { [field: string]: unknown }]> = [
    ['undefined', {}],
    ['null', { meta: null }],
    ['empty array', { meta: [] }],
  ];
  it.each(absentValues)('%s: only IS_NOT_PROVIDED passes', async (_name, data) => {
    for (const comparator of ['EQUALS', 'NOT_EQUAL_TO', 'LT', 'GTE', 'CONTAINS', 'IS_UNAVAILABLE'] as const) {
      expect(await outcomeOf(leaf(f('meta'), comparator, 1), data)).toBe('failed');
    }
    expect(await outcomeOf(leaf(f('meta'), 'IS_NOT_PROVIDED'), data)).toBe('passed');
  });

  it('a present input fails IS_NOT_PROVIDED, even an empty string', async () => {
    expect(await outcomeOf(leaf(f('meta'), 'IS_NOT_PROVIDED'), { meta: 'x' })).toBe('failed');
    expect(await outcomeOf(leaf(f('meta'), 'IS_NOT_PROVIDED'), { meta: '' })).toBe('failed');
  });

  it('does not run the signal on an absent input', async () => {
    const signal = fakeSignal('USER_SCORE', 1);
    const d = deps(signal);
    expect(await outcomeOf(leaf(f('meta'), 'EQUALS', 1, { type: 'USER_SCORE', args: { result: 1 } }), {}, d)).toBe('failed');
    expect(await outcomeOf(leaf(f('meta'), 'IS_UNAVAILABLE', undefined, { type: 'USER_SCORE', args: { result: { throw: 'x' } } }), {}, d)).toBe('failed');
    expect(signal.calls).toEqual([]);
  });

  it('never reads inherited properties as fields', async () => {
    expect(await outcomeOf(leaf(f('constructor'), 'IS_NOT_PROVIDED'), {})).toBe('passed');
    expect(await outcomeOf(leaf(f('toString'), 'IS_NOT_PROVIDED'), {})).toBe('passed');
  });
});

describe('array inputs', () => {
  it('passes when any element passes and records that element', async () => {
    const result = await evaluateConditionSet(set('AND', leaf(f('scores'), 'GT', 5)), context(item({ scores: [1, 7, 9] })), deps());
    expect(result.outcome).toBe('passed');
    expect(result.conditions[0]).toEqual({ path: 'conditions[0]', outcome: 'passed', value: 7 });
    expect(await outcomeOf(leaf(f('scores'), 'GT', 50), { scores: [1, 7, 9] })).toBe('failed');
  });

  it('is unknown when no element passes and some element is unknown', async () => {
    const signal: Signal = {
      type: 'USER_SCORE',
      cost: 1,
      inputKinds: ['any'],
      async evaluate(input) {
        if (input === 'bad') throw new Error('cannot score');
        return input === 'good' ? 10 : 0;
      },
    };
    const scored = leaf(f('tags'), 'GT', 5, { type: 'USER_SCORE' });
    const d = deps(signal);
    expect(await outcomeOf(scored, { tags: ['x', 'bad', 'good'] }, d)).toBe('passed');
    expect(await outcomeOf(scored, { tags: ['x', 'bad'] }, d)).toBe('unknown');
    expect(await outcomeOf(scored, { tags: ['x', 'y'] }, d)).toBe('failed');
    const result = await evaluateConditionSet(set('AND', scored), context(item({ tags: ['x', 'bad'] })), d);
    expect(result.conditions[0]).toMatchObject({ outcome: 'unknown', error: 'cannot score', value: 0 });
  });

  it('stops at the first passing element', async () => {
    const signal = fakeSignal('USER_SCORE', 1);
    await outcomeOf(leaf(f('tags'), 'EQUALS', 'b', { type: 'USER_SCORE', args: { result: 'echo' } }), { tags: ['a', 'b', 'c'] }, deps(signal));
    expect(signal.calls).toEqual(['a', 'b']);
  });
});

describe('builtin inputs', () => {
  it('ALL_TEXT is every STRING field, arrays flattened, any passing', async () => {
    const signal = fakeSignal('USER_SCORE', 1);
    const data = { title: 'Hello', text: 'world', tags: ['t1', 't2'], likes: 3, photo: 'https://x/p.png' };
    await outcomeOf(leaf({ builtin: 'ALL_TEXT' }, 'EQUALS', 'nope', { type: 'USER_SCORE', args: { result: 'echo' } }), data, deps(signal));
    expect(signal.calls).toEqual(['Hello', 'world', 't1', 't2']);
    expect(await outcomeOf(leaf({ builtin: 'ALL_TEXT' }, 'CONTAINS', 'orl'), data)).toBe('passed');
    expect(await outcomeOf(leaf({ builtin: 'ALL_TEXT' }, 'IS_NOT_PROVIDED'), { likes: 1 })).toBe('passed');
  });

  it('ANY_IMAGE is every IMAGE field plus data.images', async () => {
    const signal = fakeSignal('IMAGE_HASH_MATCH', 1);
    const data = { photo: 'https://x/1.png', gallery: ['https://x/2.png', 'https://x/3.png'], images: ['https://x/4.png'], text: 'hi' };
    await outcomeOf(leaf({ builtin: 'ANY_IMAGE' }, 'EQUALS', true, { type: 'IMAGE_HASH_MATCH', args: { result: false } }), data, deps(signal));
    expect(signal.calls).toEqual(['https://x/1.png', 'https://x/2.png', 'https://x/3.png', 'https://x/4.png']);
    expect(await outcomeOf(leaf({ builtin: 'ANY_IMAGE' }, 'EQUALS', 'https://x/3.png'), data)).toBe('passed');
    expect(await outcomeOf(leaf({ builtin: 'ANY_IMAGE' }, 'IS_NOT_PROVIDED'), { text: 'hi' })).toBe('passed');
  });

  it('ANY_IMAGE takes data.images however the item type declares it (validation keeps it an array of image URLs), and once when declared IMAGE', async () => {
    const declared = (type: 'STRING' | 'IMAGE'): EvaluatedItem['itemType'] => ({ ...postType, fields: [...postType.fields, field('images', type, true)] });
    const data = { photo: 'https://x/1.png', images: ['https://x/4.png'] };
    for (const type of ['STRING', 'IMAGE'] as const) {
      const signal = fakeSignal('IMAGE_HASH_MATCH', 1);
      const leafOf = leaf({ builtin: 'ANY_IMAGE' }, 'EQUALS', true, { type: 'IMAGE_HASH_MATCH', args: { result: false } });
      await outcomeOf(leafOf, data, deps(signal), item(data, { itemType: declared(type) }));
      expect(signal.calls, type).toEqual(['https://x/1.png', 'https://x/4.png']);
    }
  });

  it('CREATOR is the creator identifier, absent when there is none', async () => {
    expect(await outcomeOf(leaf({ builtin: 'CREATOR' }, 'EQUALS', { id: 'u1', typeId: 'user' }), {})).toBe('passed');
    expect(await outcomeOf(leaf({ builtin: 'CREATOR' }, 'IS_NOT_PROVIDED'), {}, deps(), item({}, { creator: null }))).toBe('passed');
  });

  it('ITEM is the whole item', async () => {
    expect(await outcomeOf(leaf({ builtin: 'ITEM' }, 'EQUALS', { id: 'p1', typeId: 'post', data: { likes: 2 } }), { likes: 2 })).toBe('passed');
  });

  it('report inputs come from data.__report and are absent without it', async () => {
    const data = { __report: { reason: 'spam!', policyId: 'spam', count: 4 } };
    expect(await outcomeOf(leaf({ builtin: 'REPORT_REASON' }, 'CONTAINS', 'spam'), data)).toBe('passed');
    expect(await outcomeOf(leaf({ builtin: 'REPORTED_POLICY' }, 'EQUALS', 'spam'), data)).toBe('passed');
    expect(await outcomeOf(leaf({ builtin: 'REPORT_COUNT' }, 'GTE', 3), data)).toBe('passed');
    expect(await outcomeOf(leaf({ builtin: 'REPORT_COUNT' }, 'IS_NOT_PROVIDED'), {})).toBe('passed');
  });
});

describe('conjunctions', () => {
  const d = deps(FIXED);
  const all: Outcome[] = ['passed', 'failed', 'unknown'];
  const pairs = all.flatMap((a) => all.map((b) => [a, b] as [Outcome, Outcome]));
  const expected = {
    AND: {
      'passed,passed': 'passed',
      'passed,failed': 'failed',
      'passed,unknown': 'unknown',
      'failed,passed': 'failed',
      'failed,failed': 'failed',
      'failed,unknown': 'failed',
      'unknown,passed': 'unknown',
      'unknown,failed': 'failed',
      'unknown,unknown': 'unknown',
    },
    OR: {
      'passed,passed': 'passed',
      'passed,failed': 'passed',
      'passed,unknown': 'passed',
      'failed,passed': 'passed',
      'failed,failed': 'failed',
      'failed,unknown': 'unknown',
      'unknown,passed': 'passed',
      'unknown,failed': 'unknown',
      'unknown,unknown': 'unknown',
    },
    XOR: {
      'passed,passed': 'failed',
      'passed,failed': 'passed',
      'passed,unknown': 'unknown',
      'failed,passed': 'passed',
      'failed,failed': 'failed',
      'failed,unknown': 'unknown',
      'unknown,passed': 'unknown',
      'unknown,failed': 'unknown',
      'unknown,unknown': 'unknown',
    },
  } as const;
  for (const conjunction of ['AND', 'OR', 'XOR'] as const) {
    it.each(pairs)(`${conjunction}(%s, %s)`, async (a, b) => {
      expect(await outcomeOf(set(conjunction, fixed(a), fixed(b)), titled, d)).toBe(expected[conjunction][`${a},${b}`]);
    });
  }

  it('XOR of three: exactly one pass with no unknown passes; two passes fail even with an unknown', async () => {
    expect(await outcomeOf(set('XOR', fixed('failed'), fixed('passed'), fixed('failed')), titled, d)).toBe('passed');
    expect(await outcomeOf(set('XOR', fixed('passed'), fixed('unknown'), fixed('passed')), titled, d)).toBe('failed');
    expect(await outcomeOf(set('XOR', fixed('failed'), fixed('unknown'), fixed('failed')), titled, d)).toBe('unknown');
    expect(await outcomeOf(set('XOR', fixed('failed'), fixed('failed'), fixed('failed')), titled, d)).toBe('failed');
  });

  it('nested sets combine their outcomes', async () => {
    const nested = set('AND', fixed('passed'), set('OR', fixed('failed'), set('XOR', fixed('passed'), fixed('failed'))));
    expect(await outcomeOf(nested, titled, d)).toBe('passed');
    const unknownInside = set('OR', fixed('failed'), set('AND', fixed('passed'), fixed('unknown')));
    expect(await outcomeOf(unknownInside, titled, d)).toBe('unknown');
  });
});

describe('signals', () => {
  it('a throwing signal makes the leaf unknown, with the error recorded', async () => {
    const d = deps(fakeSignal('USER_SCORE', 1));
    const result = await evaluateConditionSet(
      set('AND', leaf(f('title'), 'GT', 1, { type: 'USER_SCORE', args: { result: { throw: 'scorer down' } } })),
      context(item(titled)),
      d,
    );
    expect(result).toEqual({ outcome: 'unknown', conditions: [{ path: 'conditions[0]', outcome: 'unknown', error: 'scorer down' }] });
  });

  it('a signal that throws synchronously is unknown too', async () => {
    const signal: Signal = {
      type: 'USER_SCORE',
      cost: 1,
      inputKinds: ['any'],
      evaluate() {
        throw new Error('sync failure');
      },
    };
    expect(await outcomeOf(leaf(f('title'), 'EQUALS', 1, { type: 'USER_SCORE' }), titled, deps(signal))).toBe('unknown');
  });

  it('an unregistered signal is unknown', async () => {
    const result = await evaluateConditionSet(set('AND', leaf(f('title'), 'GT', 1, { type: 'USER_STRIKE_COUNT' })), context(item(titled)), deps());
    expect(result.outcome).toBe('unknown');
    expect(result.conditions[0]).toEqual({ path: 'conditions[0]', outcome: 'unknown', error: 'signal USER_STRIKE_COUNT is not available' });
  });

  it('IS_UNAVAILABLE passes exactly when the signal failed', async () => {
    const d = deps(fakeSignal('USER_SCORE', 1));
    const unavailable = (result: unknown) => leaf(f('title'), 'IS_UNAVAILABLE', undefined, { type: 'USER_SCORE', args: { result } });
    expect(await outcomeOf(unavailable({ throw: 'down' }), titled, d)).toBe('passed');
    expect(await outcomeOf(unavailable(0), titled, d)).toBe('failed');
    expect(await outcomeOf(leaf(f('title'), 'IS_UNAVAILABLE', undefined, { type: 'USER_STRIKE_COUNT' }), titled, d)).toBe('passed');
    expect(await outcomeOf(leaf(f('title'), 'IS_UNAVAILABLE'), titled, d)).toBe('failed');
  });

  it('records the signal value and passes explain detail for a passing leaf', async () => {
    const signal: Signal = {
      type: 'USER_SCORE',
      cost: 1,
      inputKinds: ['any'],
      evaluate: async () => 0.9,
      explain: (_input, args) => ({ model: args.model }),
    };
    const result = await evaluateConditionSet(
      set('AND', leaf(f('title'), 'GT', 0.5, { type: 'USER_SCORE', args: { model: 'm1' } })),
      context(item(titled)),
      deps(signal),
    );
    expect(result.conditions[0]).toEqual({ path: 'conditions[0]', outcome: 'passed', value: 0.9, detail: { model: 'm1' } });
  });

  it('memoizes a signal across rules of the same item', async () => {
    const signal = fakeSignal('USER_SCORE', 10);
    const d = deps(signal);
    const condition = set('AND', leaf(f('title'), 'EQUALS', 1, { type: 'USER_SCORE', args: { result: 1 } }));
    const ctx = context(item(titled));
    await Promise.all([evaluateConditionSet(condition, ctx, d), evaluateConditionSet(condition, ctx, d)]);
    await evaluateConditionSet(condition, ctx, d);
    expect(signal.calls).toHaveLength(1);
  });

  it('asks CREATOR_SUBMISSION_COUNT again for each item (it counts the item itself), never from the memo', async () => {
    const d = deps(creatorSubmissionCountSignal);
    const condition = set('AND', leaf({ builtin: 'CREATOR' }, 'GT', 3, { type: 'CREATOR_SUBMISSION_COUNT', args: { windowSeconds: 3600 } }));
    // The creator's burst: each item submitted counts one more.
    const outcomes: string[] = [];
    for (let n = 1; n <= 5; n++) {
      const ctx = { ...context(item(titled, { id: `p${n}` })), creatorSubmissionCount: async () => n };
      outcomes.push((await evaluateConditionSet(condition, ctx, d)).outcome);
    }
    expect(outcomes).toEqual(['failed', 'failed', 'failed', 'passed', 'passed']);
    expect(d.memo.size).toBe(0);
  });

  it('recomputes in-memory signals (cost below 10) rather than memoizing them', async () => {
    const signal = fakeSignal('TEXT_CONTAINS', 1);
    const d = deps(signal);
    const condition = set('AND', leaf(f('title'), 'EQUALS', 1, { type: 'TEXT_CONTAINS', args: { result: 1 } }));
    await evaluateConditionSet(condition, context(item(titled)), d);
    await evaluateConditionSet(condition, context(item(titled)), d);
    expect(signal.calls).toHaveLength(2);
    expect(d.memo.size).toBe(0);
  });
});

describe('cost ordering and short-circuit', () => {
  it('never calls an expensive signal when a cheaper sibling decided the outcome', async () => {
    const expensive = fakeSignal('HTTP_SIGNAL', 100);
    const cheap = fakeSignal('TEXT_CONTAINS', 1);
    const spy = vi.spyOn(expensive, 'evaluate');
    const d = deps(expensive, cheap);
    const expensiveLeaf = leaf(f('title'), 'GT', 0.5, { type: 'HTTP_SIGNAL', args: { result: 0.9 } });
    const cheapLeaf = (result: boolean) => leaf(f('title'), 'EQUALS', true, { type: 'TEXT_CONTAINS', args: { result } });

    // The expensive leaf comes first in the document; the cheap one still runs first.
    const and = await evaluateConditionSet(set('AND', expensiveLeaf, cheapLeaf(false)), context(item(titled)), d);
    expect(and.outcome).toBe('failed');
    const or = await evaluateConditionSet(set('OR', expensiveLeaf, cheapLeaf(true)), context(item(titled)), d);
    expect(or.outcome).toBe('passed');
    expect(spy).not.toHaveBeenCalled();
    expect(and.conditions).toEqual([
      { path: 'conditions[0]', outcome: 'skipped' },
      { path: 'conditions[1]', outcome: 'failed', value: false },
    ]);

    const undecided = await evaluateConditionSet(set('AND', expensiveLeaf, cheapLeaf(true)), context(item(titled)), d);
    expect(undecided.outcome).toBe('passed');
    expect(spy).toHaveBeenCalledTimes(1);
  });

  it('orders sets by the sum of their children, ties in document order', async () => {
    const order: string[] = [];
    const tracking = (type: SignalType, cost: number): Signal => ({
      type,
      cost,
      inputKinds: ['any'],
      async evaluate(_input, args) {
        order.push(String(args.name));
        return true;
      },
    });
    const d = deps(tracking('HTTP_SIGNAL', 100), tracking('CREATOR_SUBMISSION_COUNT', 10), tracking('TEXT_CONTAINS', 1), tracking('TEXT_BANK', 3));
    const l = (type: SignalType, name: string) => leaf(f('title'), 'EQUALS', true, { type, args: { name } });
    const condition = set(
      'AND',
      set('AND', l('TEXT_CONTAINS', 'set-a'), l('TEXT_CONTAINS', 'set-b'), l('TEXT_CONTAINS', 'set-c'), l('TEXT_CONTAINS', 'set-d')),
      l('HTTP_SIGNAL', 'http'),
      l('TEXT_BANK', 'bank'),
      l('CREATOR_SUBMISSION_COUNT', 'count'),
      l('TEXT_CONTAINS', 'tie-1'),
      l('TEXT_CONTAINS', 'tie-2'),
    );
    expect(conditionCost(condition, d.registry)).toBe(4 + 100 + 3 + 10 + 1 + 1);
    expect(conditionCost(l('USER_SCORE', 'x'), d.registry)).toBe(0);
    expect(conditionCost(leaf(f('title'), 'EQUALS', 1), d.registry)).toBe(0);
    expect((await evaluateConditionSet(condition, context(item(titled)), d)).outcome).toBe('passed');
    expect(order).toEqual(['tie-1', 'tie-2', 'bank', 'set-a', 'set-b', 'set-c', 'set-d', 'count', 'http']);
  });

  it('re-orders when a registration changes the costs', async () => {
    const registry = new SignalRegistry();
    const d = { registry, memo: new SignalMemo() };
    const order: string[] = [];
    const tracking = (type: SignalType, cost: number): Signal => ({
      type,
      cost,
      inputKinds: ['any'],
      async evaluate() {
        order.push(type);
        return true;
      },
    });
    registry.register(tracking('USER_SCORE', 50));
    const condition = set('AND', leaf(f('title'), 'EQUALS', true, { type: 'USER_SCORE' }), leaf(f('title'), 'EQUALS', true, { type: 'TEXT_BANK' }));
    expect((await evaluateConditionSet(condition, context(item(titled)), d)).outcome).toBe('unknown');
    registry.register(tracking('TEXT_BANK', 100));
    order.length = 0;
    expect((await evaluateConditionSet(condition, context(item({ title: 'y' })), d)).outcome).toBe('passed');
    expect(order).toEqual(['USER_SCORE', 'TEXT_BANK']);
  });

  it('XOR stops after two passes and records the rest as skipped', async () => {
    const signal = fakeSignal('USER_SCORE', 1);
    const d = deps(signal);
    const result = await evaluateConditionSet(set('XOR', fixedWith(true), fixedWith(true), fixedWith(false)), context(item(titled)), d);
    expect(result.outcome).toBe('failed');
    expect(result.conditions.map((record) => record.outcome)).toEqual(['passed', 'passed', 'skipped']);
  });

  it('records every condition in document order with paths relative to the set; skipped sets skip their children', async () => {
    const d = deps(fakeSignal('USER_SCORE', 0), fakeSignal('HTTP_SIGNAL', 100));
    const slow = (result: boolean) => leaf(f('title'), 'EQUALS', true, { type: 'HTTP_SIGNAL', args: { result } });
    const condition = set(
      'OR',
      set('AND', slow(true), slow(false)),
      leaf(f('likes'), 'GT', 10),
      set('OR', fixedWith(false), set('AND', fixedWith(true), fixedWith(true))),
    );
    const result = await evaluateConditionSet(condition, context(item({ title: 't', likes: 3 })), d);
    expect(result.outcome).toBe('passed');
    expect(result.conditions).toEqual([
      { path: 'conditions[0]', outcome: 'skipped' },
      { path: 'conditions[0].conditions[0]', outcome: 'skipped' },
      { path: 'conditions[0].conditions[1]', outcome: 'skipped' },
      { path: 'conditions[1]', outcome: 'failed', value: 3 },
      { path: 'conditions[2]', outcome: 'passed' },
      { path: 'conditions[2].conditions[0]', outcome: 'failed', value: false },
      { path: 'conditions[2].conditions[1]', outcome: 'passed' },
      { path: 'conditions[2].conditions[1].conditions[0]', outcome: 'passed', value: true },
      { path: 'conditions[2].conditions[1].conditions[1]', outcome: 'passed', value: true },
    ]);
  });
});

function fixedWith(result: boolean): LeafCondition {
  return leaf(f('title'), 'EQUALS', true, { type: 'USER_SCORE', args: { result } });
}

describe('synchronous and asynchronous signals', () => {
  /** The same signal as fakeSignal, answering at once instead of with a promise. */
  function syncFakeSignal(type: SignalType, cost: number): Signal {
    const asyncTwin = fakeSignal(type, cost);
    return {
      ...asyncTwin,
      evaluate(input, args) {
        const result = args.result;
        if (typeof result === 'object' && result !== null && 'throw' in result) throw new Error(String((result as { throw: unknown }).throw));
        return result === 'echo' ? input : result;
      },
    };
  }
  const sig = (type: SignalType, result: unknown, comparator: Comparator = 'EQUALS', input = f('title')) =>
    leaf(input, comparator, true, { type, args: { result } });
  const sets: ConditionSet[] = [
    set('AND', sig('USER_SCORE', true), sig('USER_STRIKE_COUNT', false), sig('USER_SCORE', true)),
    set('OR', sig('USER_STRIKE_COUNT', { throw: 'down' }), sig('USER_SCORE', false), set('XOR', sig('USER_SCORE', true), sig('USER_STRIKE_COUNT', true))),
    set('XOR', sig('USER_SCORE', { throw: 'x' }, 'IS_UNAVAILABLE'), sig('USER_STRIKE_COUNT', false), sig('USER_SCORE', 'echo', 'EQUALS', f('tags'))),
    set('AND', set('OR', sig('USER_STRIKE_COUNT', true), sig('USER_SCORE', true)), sig('USER_SCORE', { throw: 'boom' }), sig('USER_STRIKE_COUNT', true)),
  ];
  const data = { title: 'x', tags: ['a', 'b'] };

  it('records the same outcomes whichever way each signal answers, synchronously only when all do', async () => {
    const combos: Array<[string, EvaluatorDeps]> = [
      ['both async', deps(fakeSignal('USER_SCORE', 1), fakeSignal('USER_STRIKE_COUNT', 2))],
      ['both sync', deps(syncFakeSignal('USER_SCORE', 1), syncFakeSignal('USER_STRIKE_COUNT', 2))],
      ['mixed', deps(syncFakeSignal('USER_SCORE', 1), fakeSignal('USER_STRIKE_COUNT', 2))],
      ['mixed the other way', deps(fakeSignal('USER_SCORE', 1), syncFakeSignal('USER_STRIKE_COUNT', 2))],
    ];
    for (const s of sets) {
      const results = [];
      for (const [label, d] of combos) {
        const result = evaluateConditionSet(s, context(item(data)), d);
        if (label === 'both sync') expect(result).not.toBeInstanceOf(Promise);
        if (label === 'both async') expect(result).toBeInstanceOf(Promise);
        results.push(await result);
      }
      for (const r of results.slice(1)) expect(r).toEqual(results[0]);
    }
  });
});

describe('partial items (typeSchemaVariant: partial)', () => {
  const partial = (data: { [field: string]: unknown }, overrides: Partial<EvaluatedItem> = {}) => item(data, { partial: true, ...overrides });
  const evaluate = async (root: ConditionSet, evaluated: EvaluatedItem, d = deps()) => evaluateConditionSet(root, context(evaluated), d);

  it('a condition on a field the item did not send is unknown, naming the field, never a silent false', async () => {
    const result = await evaluate(set('AND', leaf(f('likes'), 'LT', 2)), partial({ text: 'hi' }));
    expect(result.outcome).toBe('unknown');
    expect(result.conditions[0]).toEqual({ path: 'conditions[0]', outcome: 'unknown', error: 'partial item: likes not sent', missing: ['likes'] });
    // The same item sent whole (not partial): the absent field is not applicable, as before.
    expect(await outcomeOf(set('AND', leaf(f('likes'), 'LT', 2)), { text: 'hi' })).toBe('failed');
  });

  it('IS_NOT_PROVIDED on a field not sent is unknown too: it may well be provided', async () => {
    expect((await evaluate(set('AND', leaf(f('likes'), 'IS_NOT_PROVIDED')), partial({}))).outcome).toBe('unknown');
    // Sent as null: provided as absent.
    expect((await evaluate(set('AND', leaf(f('likes'), 'IS_NOT_PROVIDED')), partial({ likes: null }))).outcome).toBe('passed');
  });

  it('what the fields sent decide stands: AND with a failing sent field fails, OR with a passing one passes', async () => {
    const and = await evaluate(set('AND', leaf(f('likes'), 'LT', 2), leaf(f('text'), 'EQUALS', 'spam')), partial({ text: 'ham' }));
    expect(and.outcome).toBe('failed');
    const or = await evaluate(set('OR', leaf(f('likes'), 'LT', 2), leaf(f('text'), 'EQUALS', 'spam')), partial({ text: 'spam' }));
    expect(or.outcome).toBe('passed');
  });

  it('ALL_TEXT passes on the text sent; a miss is unknown while text fields are missing', async () => {
    const contains = (term: string) => leaf({ builtin: 'ALL_TEXT' }, 'CONTAINS', term);
    expect((await evaluate(set('AND', contains('buy')), partial({ text: 'buy now' }))).outcome).toBe('passed');
    const miss = await evaluate(set('AND', contains('buy')), partial({ text: 'hello' }));
    expect(miss.outcome).toBe('unknown');
    expect(miss.conditions[0]!.missing).toEqual(['title', 'tags', 'meta']);
  });

  it('ANY_IMAGE is unknown while an image field, or a declared images of any type, was not sent', async () => {
    const noImage = leaf({ builtin: 'ANY_IMAGE' }, 'IS_NOT_PROVIDED');
    const withImages = { itemType: { ...postType, fields: [...postType.fields, field('images', 'STRING', true)] } };
    const missing = await evaluate(set('AND', noImage), partial({ photo: null, gallery: null }, withImages));
    expect(missing.outcome).toBe('unknown');
    expect(missing.conditions[0]!.missing).toEqual(['images']);
    expect((await evaluate(set('AND', noImage), partial({ photo: null, gallery: null, images: [] }, withImages))).outcome).toBe('passed');
    expect((await evaluate(set('AND', noImage), partial({ photo: null, gallery: null }))).outcome).toBe('passed');
  });

  it('the creator is unknown when its role field was not sent, known when the item carries it', async () => {
    const creator = leaf({ builtin: 'CREATOR' }, 'EQUALS', { id: 'u1', typeId: 'user' });
    expect((await evaluate(set('AND', creator), partial({}, { creator: null }))).outcome).toBe('unknown');
    expect((await evaluate(set('AND', creator), partial({}))).outcome).toBe('passed');
  });
});
