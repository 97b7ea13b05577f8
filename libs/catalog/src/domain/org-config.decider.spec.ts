import { describe, expect, it } from 'vitest';
import type { CatalogEvent } from './catalog.events.js';
import type { PolicyDefinition, QueueDefinition } from './catalog.model.js';
import { type DesiredCatalog, initialCatalogState, orgConfigDecider, planCatalog } from './org-config.decider.js';

const policy = (id: string, name = id): PolicyDefinition => ({
  id,
  name,
  parentId: null,
  policyText: null,
  enforcementGuidelines: null,
  policyType: null,
  penalty: 'NONE',
  userStrikeCount: 0,
  applyUserStrikeCountConfigToChildren: false,
});
const queue = (id: string): QueueDefinition => ({ id, name: id, isDefault: false, isAppealsDefault: false, lockTimeoutSeconds: 600 });

function desired(parts: { policies?: PolicyDefinition[]; queues?: QueueDefinition[] } = {}): DesiredCatalog {
  return {
    entities: {
      itemType: [],
      policy: parts.policies ?? [],
      action: [],
      textBank: [],
      hashBank: [],
      rule: [],
      queue: parts.queues ?? [],
      routingRule: [],
      appealRoutingRule: [],
    },
    settings: { requireDecisionReason: false, requirePolicyForDecisions: false, requireSecondFactor: false },
    strikes: { windowDays: null, thresholds: [] },
    appeals: { callback: null, body: {} },
    sso: { saml_enabled: false, sso_url: null, cert: null, passwordLogin: true, jit: { enabled: false, defaultRoles: [] }, roleAttribute: null, roleMap: {}, wantAssertionsSigned: true },
  };
}

const fold = (events: CatalogEvent[]) => events.reduce(orgConfigDecider.evolve, initialCatalogState);
const apply = (d: DesiredCatalog, prune = false) => ({ type: 'ApplyCatalog' as const, desired: d, prune });

describe('org config decider', () => {
  it('creates every entity and the settings on the first apply, then decides nothing', () => {
    const d = desired({ policies: [policy('spam')], queues: [queue('default')] });
    const first = planCatalog(apply(d), initialCatalogState);
    expect(first.events.map((e) => e.type)).toEqual([
      'PolicyDefined',
      'QueueDefined',
      'OrgSettingsChanged',
      'StrikeSettingsChanged',
      'AppealSettingsChanged',
      'SsoSettingsChanged',
    ]);
    expect(first.created).toEqual([
      { kind: 'policy', id: 'spam' },
      { kind: 'queue', id: 'default' },
    ]);
    expect(orgConfigDecider.decide(apply(d), fold(first.events))).toEqual([]);
  });

  it('reads org settings recorded before requireSecondFactor existed as off, so an unchanged file decides nothing', () => {
    const d = desired({});
    const first = planCatalog(apply(d), initialCatalogState).events;
    const old = first.map((e) =>
      e.type === 'OrgSettingsChanged' ? ({ ...e, data: { settings: { requireDecisionReason: false, requirePolicyForDecisions: false } } } as CatalogEvent) : e,
    );
    expect(orgConfigDecider.decide(apply(d), fold(old))).toEqual([]);
    const enforced = orgConfigDecider.decide(apply({ ...d, settings: { ...d.settings, requireSecondFactor: true } }), fold(old));
    expect(enforced.map((e) => e.type)).toEqual(['OrgSettingsChanged']);
  });

  it('bumps semanticVersion on every change of a policy', () => {
    const v1 = planCatalog(apply(desired({ policies: [policy('spam')] })), initialCatalogState).events;
    expect(v1[0]!.data).toMatchObject({ semanticVersion: 1 });
    const renamed = orgConfigDecider.decide(apply(desired({ policies: [policy('spam', 'Spam!')] })), fold(v1));
    expect(renamed).toEqual([{ type: 'PolicyDefined', data: { kind: 'policy', entity: policy('spam', 'Spam!'), semanticVersion: 2 } }]);
    const state = fold([...v1, ...renamed]);
    expect(state.entities.policy['spam']!.semanticVersion).toBe(2);
  });

  it('leaves entities missing from the file alone, and archives them only with prune', () => {
    const base = fold(planCatalog(apply(desired({ policies: [policy('a'), policy('b')] })), initialCatalogState).events);
    const kept = planCatalog(apply(desired({ policies: [policy('a')] })), base);
    expect(kept.events).toEqual([]);
    expect(kept.leftAlone).toEqual([{ kind: 'policy', id: 'b' }]);
    const pruned = planCatalog(apply(desired({ policies: [policy('a')] }), true), base);
    expect(pruned.events).toEqual([{ type: 'PolicyArchived', data: { kind: 'policy', id: 'b' } }]);
    const after = fold([...planCatalog(apply(desired({ policies: [policy('a'), policy('b')] })), initialCatalogState).events, ...pruned.events]);
    expect(after.entities.policy['b']!.archived).toBe(true);
    expect(planCatalog(apply(desired({ policies: [policy('a')] }), true), after).events).toEqual([]);
    const revived = planCatalog(apply(desired({ policies: [policy('a'), policy('b')] })), after);
    expect(revived.created).toEqual([{ kind: 'policy', id: 'b' }]);
    expect(revived.events[0]!.data).toMatchObject({ semanticVersion: 2 });
  });
});
