import { describe, expect, it } from 'vitest';
import { type RecordedEvent, UpcasterRegistry } from '#warden/kernel';
import { RULES_UPCASTERS } from './evaluation.upcasters.js';

/** A RuleDailyActionCounted as releases up to this one stored it (values made up). */
const storedV1: RecordedEvent = {
  id: '0c4f5a8e-1b2d-8e3f-9a4b-5c6d7e8f9a0b',
  type: 'RuleDailyActionCounted',
  streamName: 'rule_daily_actions-shop:capped:2026-11-01',
  revision: 0,
  position: 7,
  data: { ruleId: 'capped', item: { id: 'cap-1', typeId: 'post' }, version: 0 },
  metadata: { orgId: 'shop', correlationId: 'r', causationId: 'c', actor: 'rules-engine', occurredAt: '2026-11-01T00:00:00.000Z', schemaVersion: 1 },
};

describe('rules upcasters', () => {
  const registry = new UpcasterRegistry();
  registry.register(...RULES_UPCASTERS);

  it('reads a stored v1 RuleDailyActionCounted as a count of a version, content unknown', () => {
    const read = registry.upcast(storedV1);
    expect(read.metadata.schemaVersion).toBe(2);
    expect(read.data).toEqual({ ...storedV1.data, content: null });
  });

  it('writes RuleDailyActionCounted at v2', () => {
    expect(registry.currentVersion('RuleDailyActionCounted')).toBe(2);
  });
});
