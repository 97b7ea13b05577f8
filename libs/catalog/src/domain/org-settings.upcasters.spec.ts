import { describe, expect, it } from 'vitest';
import { type RecordedEvent, UpcasterRegistry } from '#warden/kernel';
import { orgSettingsUpcasters } from './org-settings.upcasters.js';

const recorded = (data: object, schemaVersion?: number): RecordedEvent =>
  ({
    type: 'OrgSettingsChanged',
    data,
    metadata: { orgId: 'acme', correlationId: 'c', causationId: null, actor: 'cli', occurredAt: '2026-11-23T12:00:00.000Z', schemaVersion },
  }) as unknown as RecordedEvent;

describe('OrgSettingsChanged upcasters', () => {
  const registry = new UpcasterRegistry();
  registry.register(...orgSettingsUpcasters);

  it('writes version 2', () => {
    expect(registry.currentVersion('OrgSettingsChanged')).toBe(2);
  });

  it('gives a v1 event (from before requireSecondFactor and wellness) their defaults', () => {
    const v1 = recorded({ settings: { requireDecisionReason: true, requirePolicyForDecisions: false } }, 1);
    expect(registry.upcast(v1).data).toEqual({
      settings: {
        requireDecisionReason: true,
        requirePolicyForDecisions: false,
        requireSecondFactor: false,
        auditorPersonalData: false,
        wellness: { blur: 2, greyscale: true, breakAfterItems: 0, loadMedia: 'ON_OPEN' },
      },
    });
  });

  it('keeps what a v1 event recorded', () => {
    const v1 = recorded({ settings: { requireDecisionReason: false, requirePolicyForDecisions: true, requireSecondFactor: true } });
    expect(registry.upcast(v1).data).toMatchObject({ settings: { requirePolicyForDecisions: true, requireSecondFactor: true } });
  });

  it('leaves a v2 event as it is', () => {
    const settings = {
      requireDecisionReason: false,
      requirePolicyForDecisions: false,
      requireSecondFactor: false,
      wellness: { blur: 0, greyscale: false, breakAfterItems: 3 },
    };
    const v2 = recorded({ settings }, 2);
    expect(registry.upcast(v2)).toBe(v2);
  });
});
