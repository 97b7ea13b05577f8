import { describe, expect, it } from 'vitest';
import type { ConditionSet, ItemTypeDefinition } from '#warden/catalog/contracts';
import { evaluateConditionSet } from '../condition-evaluator.js';
import type { SignalContext } from '../evaluation.model.js';
import { SignalMemo } from '../signal-memo.js';
import { SignalRegistry } from '../signal-registry.js';
import { registerBuiltinSignals } from './builtin-signals.js';

describe('registerBuiltinSignals', () => {
  it('registers the built-in signals with their costs and leaves the rest unknown', () => {
    const registry = registerBuiltinSignals(new SignalRegistry());
    expect(registry.cost('TEXT_CONTAINS')).toBe(1);
    expect(registry.cost('TEXT_MATCHES_REGEX')).toBe(2);
    expect(registry.cost('TEXT_BANK')).toBe(3);
    expect(registry.cost('GEO_WITHIN')).toBe(1);
    expect(registry.cost('CREATOR_SUBMISSION_COUNT')).toBe(10);
    expect(registry.cost('HTTP_SIGNAL')).toBe(100);
    expect(registry.cost('USER_SCORE')).toBe(10);
    // Provided by an extension (the hashing module), not built in.
    expect(registry.get('IMAGE_HASH_MATCH')).toBeUndefined();
  });

  it('drives a rule end to end', async () => {
    const registry = registerBuiltinSignals(new SignalRegistry());
    const itemType: ItemTypeDefinition = {
      id: 'post',
      name: 'Post',
      kind: 'CONTENT',
      version: null,
      fields: [
        { name: 'text', type: 'STRING', required: true, array: false, itemTypeIds: [] },
        { name: 'location', type: 'GEOHASH', required: false, array: false, itemTypeIds: [] },
      ],
      roles: {},
    };
    let posted = 0;
    const ctx: SignalContext = {
      orgId: 'acme',
      item: { orgId: 'acme', id: 'p1', typeId: 'post', itemType, data: { text: 'Win $100 now', location: 'u09tvw0' }, creator: null },
      textBank: () => undefined,
      hashBanks: [],
      creatorSubmissionCount: async () => 0,
      postJson: async () => {
        posted += 1;
        return { score: 0.99 };
      },
      now: () => new Date(),
    };
    const rule: ConditionSet = {
      conjunction: 'AND',
      conditions: [
        { input: { field: 'text' }, signal: { type: 'HTTP_SIGNAL', args: { url: 'https://c.example' } }, comparator: 'GT', value: 0.5 },
        { input: { field: 'text' }, signal: { type: 'TEXT_CONTAINS', args: { terms: ['win'], wholeWord: true } }, comparator: 'EQUALS', value: true },
        { input: { field: 'location' }, signal: { type: 'GEO_WITHIN', args: { lat: 48.8566, lon: 2.3522, radiusKm: 5 } }, comparator: 'EQUALS', value: false },
      ],
    };
    const result = await evaluateConditionSet(rule, ctx, { registry, memo: new SignalMemo() });
    expect(result.outcome).toBe('failed');
    expect(result.conditions.map((record) => record.outcome)).toEqual(['skipped', 'passed', 'failed']);
    expect(posted).toBe(0);
  });
});
