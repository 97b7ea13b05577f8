import { describe, expect, it } from 'vitest';
import type { ConditionSet, ItemTypeDefinition, LeafCondition } from '#warden/catalog/contracts';
import { evaluateConditionSet } from './condition-evaluator.js';
import type { EvaluatedItem, SignalContext } from './evaluation.model.js';
import { firstPassingRoute, type OrderedRoutingRule, REPORT_DATA_KEY, routingReadsItem, routingReadsReportCount, routingRulesFor } from './review-routing.js';
import { registerBuiltinSignals } from './signals/builtin-signals.js';
import { SignalMemo } from './signal-memo.js';
import { SignalRegistry } from './signal-registry.js';

const postType: ItemTypeDefinition = {
  id: 'post',
  name: 'Post',
  kind: 'CONTENT',
  version: null,
  fields: [{ name: 'text', type: 'STRING', required: true, array: false, itemTypeIds: [] }],
  roles: {},
};

const all = (...conditions: LeafCondition[]): ConditionSet => ({ conjunction: 'AND', conditions });
const leaf = (input: LeafCondition['input'], comparator: LeafCondition['comparator'], value?: unknown): LeafCondition => ({
  input,
  signal: null,
  comparator,
  value,
});

function rule(id: string, order: number, queueId: string, conditionSet: ConditionSet, itemTypeIds: string[] = []): OrderedRoutingRule {
  return { id, name: `Rule ${id}`, queueId, itemTypeIds, conditionSet, order };
}

/** Routes with the real condition evaluator and built-in signals, as ItemEvaluator.route does. */
async function route(
  rules: OrderedRoutingRule[],
  data: { [field: string]: unknown },
  report: { reason: string | null; policyId: string | null; count: number } | null,
) {
  const item: EvaluatedItem = {
    orgId: 'acme',
    id: 'p1',
    typeId: 'post',
    itemType: postType,
    data: report ? { ...data, [REPORT_DATA_KEY]: report } : data,
    creator: null,
  };
  const ctx: SignalContext = {
    orgId: 'acme',
    item,
    textBank: () => undefined,
    hashBanks: [],
    creatorSubmissionCount: async () => 0,
    postJson: async () => ({}),
    now: () => new Date('2026-01-01T00:00:00Z'),
  };
  const deps = { registry: registerBuiltinSignals(new SignalRegistry()), memo: new SignalMemo() };
  return firstPassingRoute(routingRulesFor(rules, 'post'), (set) => evaluateConditionSet(set, ctx, deps));
}

const spamPolicy = rule('by-policy', 1, 'spam', all(leaf({ builtin: 'REPORTED_POLICY' }, 'EQUALS', 'spam')));
const manyReports = rule('many', 0, 'urgent', all(leaf({ builtin: 'REPORT_COUNT' }, 'GTE', 3)));
const byReason = rule('by-reason', 2, 'abuse', all(leaf({ builtin: 'REPORT_REASON' }, 'CONTAINS', 'abuse')));

describe('review routing', () => {
  it('runs the rules in their order: the first that passes picks the queue', async () => {
    const rules = [byReason, spamPolicy, manyReports];
    expect((await route(rules, { text: 'x' }, { reason: 'abuse and spam', policyId: 'spam', count: 1 }))?.rule.id).toBe('by-policy');
    const urgent = await route(rules, { text: 'x' }, { reason: 'abuse', policyId: 'spam', count: 3 });
    expect(urgent).toMatchObject({ queueId: 'urgent', rule: { id: 'many', name: 'Rule many' } });
    expect(urgent?.conditions).toHaveLength(1);
    expect((await route(rules, { text: 'x' }, { reason: 'pure abuse', policyId: null, count: 1 }))?.queueId).toBe('abuse');
  });

  it('answers null when no rule passes', async () => {
    expect(await route([spamPolicy, byReason], { text: 'x' }, { reason: 'other', policyId: 'violence', count: 1 })).toBeNull();
    expect(await route([], { text: 'x' }, { reason: 'abuse', policyId: 'spam', count: 9 })).toBeNull();
  });

  it('treats report inputs as absent for a request that is no report (unknown does not pass)', async () => {
    expect(await route([spamPolicy, manyReports], { text: 'x' }, null)).toBeNull();
  });

  it('routes on item fields through the built-in signals', async () => {
    const words = rule(
      'words',
      5,
      'spam',
      all({ input: { field: 'text' }, signal: { type: 'TEXT_CONTAINS', args: { terms: ['buy now'] } }, comparator: 'EQUALS', value: true }),
    );
    expect((await route([spamPolicy, words], { text: 'BUY NOW cheap' }, null))?.queueId).toBe('spam');
    expect(await route([words], { text: 'hello' }, null)).toBeNull();
  });

  it('applies a rule with item types only to those types ([] = every type)', () => {
    const onUsers = rule('users', 0, 'u', all(), ['user']);
    const onPosts = rule('posts', 3, 'p', all(), ['post']);
    const anywhere = rule('any', 1, 'a', all());
    expect(routingRulesFor([onPosts, onUsers, anywhere], 'post').map((r) => r.id)).toEqual(['any', 'posts']);
  });
});

describe('routingReadsItem', () => {
  const any = (...conditions: Array<LeafCondition | ConditionSet>): ConditionSet => ({ conjunction: 'OR', conditions });

  it('is false when every leaf of every rule reads a report input: the item need not be loaded', () => {
    expect(routingReadsItem([byReason, spamPolicy, manyReports])).toBe(false);
    expect(
      routingReadsItem([rule('nested', 0, 'q', any(all(leaf({ builtin: 'REPORT_COUNT' }, 'GTE', 2)), leaf({ builtin: 'REPORT_REASON' }, 'IS_NOT_PROVIDED')))]),
    ).toBe(false);
    expect(routingReadsItem([])).toBe(false);
  });

  it('is true as soon as one leaf, in any rule and at any depth, reads a field, the creator, its text, images or the item', () => {
    for (const input of [{ field: 'text' }, { builtin: 'CREATOR' }, { builtin: 'ALL_TEXT' }, { builtin: 'ANY_IMAGE' }, { builtin: 'ITEM' }] as const) {
      const deep = rule(
        'deep',
        3,
        'q',
        any(leaf({ builtin: 'REPORT_COUNT' }, 'GTE', 2), all(leaf({ builtin: 'REPORT_REASON' }, 'IS_NOT_PROVIDED'), leaf(input, 'IS_NOT_PROVIDED'))),
      );
      expect(routingReadsItem([byReason, deep]), JSON.stringify(input)).toBe(true);
    }
  });
});

describe('routingReadsReportCount', () => {
  const any = (...conditions: Array<LeafCondition | ConditionSet>): ConditionSet => ({ conjunction: 'OR', conditions });

  it('is false unless some leaf reads REPORT_COUNT: the item’s reports are then not counted', () => {
    expect(routingReadsReportCount([byReason, spamPolicy])).toBe(false);
    expect(routingReadsReportCount([rule('field', 0, 'q', all(leaf({ field: 'text' }, 'IS_NOT_PROVIDED')))])).toBe(false);
    expect(routingReadsReportCount([])).toBe(false);
  });

  it('is true as soon as one leaf, in any rule and at any depth, reads REPORT_COUNT, the whole item or the report inputs by path', () => {
    expect(routingReadsReportCount([byReason, manyReports])).toBe(true);
    expect(routingReadsReportCount([byReason, rule('whole', 0, 'q', all(leaf({ builtin: 'ITEM' }, 'IS_NOT_PROVIDED')))])).toBe(true);
    expect(routingReadsReportCount([rule('path', 0, 'q', all(leaf({ field: `${REPORT_DATA_KEY}.count` }, 'GTE', 2)))])).toBe(true);
    const deep = rule('deep', 3, 'q', any(leaf({ builtin: 'REPORT_REASON' }, 'IS_NOT_PROVIDED'), all(leaf({ builtin: 'REPORT_COUNT' }, 'GTE', 2))));
    expect(routingReadsReportCount([byReason, deep])).toBe(true);
  });
});
