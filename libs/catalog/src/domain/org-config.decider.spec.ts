import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { DomainError } from '#warden/kernel';
import type { CatalogEvent } from './catalog.events.js';
import type { PolicyDefinition, QueueDefinition, SsoSettings } from './catalog.model.js';
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
const queue = (id: string): QueueDefinition => ({ id, name: id, isDefault: false, isAppealsDefault: false, lockTimeoutSeconds: 600, order: 'FIFO', autoCloseAfterDays: null });

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

describe('org config decider: the console changes the sso settings', () => {
  const IDP_CERT = readFileSync(new URL('../../../../examples/idp-example.pem', import.meta.url), 'utf8');
  const enabled = { saml_enabled: true, sso_url: 'https://idp.example/sso', jit: { enabled: true, defaultRoles: ['MODERATOR'] } };
  const change = (settings: Record<string, unknown>) => ({ type: 'ChangeSsoSettings' as const, settings });
  const given = (...events: CatalogEvent[]) => fold(events);
  const ssoChanged = (sso: SsoSettings): CatalogEvent => ({ type: 'SsoSettingsChanged', data: { sso } });
  const defaults = desired().sso;
  const stored: SsoSettings = { ...defaults, saml_enabled: true, sso_url: 'https://idp.example/sso', cert: IDP_CERT, jit: { enabled: true, defaultRoles: ['MODERATOR'] } };
  /** The problems a refused change names, as pointer → detail. */
  const refusal = (settings: Record<string, unknown>, state = initialCatalogState) => {
    try {
      orgConfigDecider.decide(change(settings), state);
    } catch (error) {
      expect(error).toBeInstanceOf(DomainError);
      return (error as DomainError).details.map((d) => [d.pointer, d.detail]);
    }
    throw new Error('the change was accepted');
  };

  it('given no sso section, when the settings change, then one SsoSettingsChanged with the whole section and its defaults', () => {
    expect(orgConfigDecider.decide(change({ ...enabled, cert: IDP_CERT }), initialCatalogState)).toEqual([ssoChanged(stored)]);
  });

  it('given no sso section, when the defaults are sent, then nothing: the defaults are what it had', () => {
    expect(orgConfigDecider.decide(change({}), initialCatalogState)).toEqual([]);
  });

  it('given a certificate, when a change leaves cert out, then the stored certificate is kept', () => {
    const events = orgConfigDecider.decide(change({ ...enabled, roleAttribute: 'groups', roleMap: { admins: ['ADMIN'] } }), given(ssoChanged(stored)));
    expect(events).toEqual([ssoChanged({ ...stored, roleAttribute: 'groups', roleMap: { admins: ['ADMIN'] } })]);
  });

  it('given settings, when the same settings are sent (with or without the certificate), then nothing', () => {
    expect(orgConfigDecider.decide(change(enabled), given(ssoChanged(stored)))).toEqual([]);
    expect(orgConfigDecider.decide(change({ ...enabled, cert: IDP_CERT }), given(ssoChanged(stored)))).toEqual([]);
  });

  it('given a certificate, when cert is null and SAML is off, then the certificate is removed', () => {
    expect(orgConfigDecider.decide(change({ cert: null }), given(ssoChanged(stored)))).toEqual([ssoChanged(defaults)]);
  });

  it('refuses a certificate that is not one, at /cert, as the file does', () => {
    expect(refusal({ ...enabled, cert: 'not a certificate' })).toEqual([
      ['/cert', 'is not a PEM certificate (expected -----BEGIN CERTIFICATE----- … -----END CERTIFICATE-----)'],
    ]);
    expect(refusal({ ...enabled, cert: '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----' })).toEqual([
      ['/cert', 'is not a valid X.509 certificate (the PEM block does not decode)'],
    ]);
  });

  it('checks a certificate it is given even with SAML off, unlike the file: it is set to be used', () => {
    expect(refusal({ cert: 'not a certificate' })).toEqual([
      ['/cert', 'is not a PEM certificate (expected -----BEGIN CERTIFICATE----- … -----END CERTIFICATE-----)'],
    ]);
    expect(orgConfigDecider.decide(change({ cert: IDP_CERT }), initialCatalogState)).toEqual([ssoChanged({ ...defaults, cert: IDP_CERT })]);
  });

  it('refuses what the file refuses across fields, each at its pointer', () => {
    expect(refusal({ passwordLogin: false })).toEqual([['/passwordLogin', 'can be false only when saml_enabled is true']]);
    expect(refusal({ roleMap: { admins: ['ADMIN'] } })).toEqual([
      ['/roleAttribute', 'is required when roleMap is set (the assertion attribute that holds the groups)'],
    ]);
    expect(refusal({ jit: { enabled: true } })).toEqual([['/jit/defaultRoles', 'must name at least one role when jit is enabled without roleAttribute']]);
    expect(refusal({ saml_enabled: true })).toEqual([
      ['/sso_url', 'is required when saml_enabled is true'],
      ['/cert', 'is required when saml_enabled is true'],
    ]);
  });

  it('refuses a bad shape at the field: an unknown role, an unknown key, a URL that is not one', () => {
    expect(refusal({ jit: { enabled: true, defaultRoles: ['KING'] } })[0]![0]).toBe('/jit/defaultRoles/0');
    expect(refusal({ sso_url: 'idp' })).toEqual([['/sso_url', 'must be an absolute http(s) URL']]);
    expect(refusal({ samlEnabled: true })).toEqual([['/samlEnabled', 'unknown key']]);
  });

  it('given a certificate, when SAML is on and cert is null, then refused: sign-in needs it', () => {
    expect(refusal({ ...enabled, cert: null }, given(ssoChanged(stored)))).toEqual([['/cert', 'is required when saml_enabled is true']]);
  });
});
