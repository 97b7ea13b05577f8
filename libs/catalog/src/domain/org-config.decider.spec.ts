import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { deciderSpecification, DomainError } from '#warden/kernel';
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
const queue = (id: string): QueueDefinition => ({
  id,
  name: id,
  isDefault: false,
  isAppealsDefault: false,
  lockTimeoutSeconds: 600,
  order: 'FIFO',
  autoCloseAfterDays: null,
});

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
    settings: {
      requireDecisionReason: false,
      requirePolicyForDecisions: false,
      requireSecondFactor: false,
      auditorPersonalData: false,
      wellness: { blur: 2, greyscale: true, breakAfterItems: 0, loadMedia: 'ON_OPEN' },
    },
    strikes: { windowDays: null, thresholds: [] },
    appeals: { callback: null, body: {} },
    sso: {
      saml_enabled: false,
      sso_url: null,
      cert: null,
      passwordLogin: true,
      jit: { enabled: false, defaultRoles: [] },
      roleAttribute: null,
      roleMap: {},
      wantAssertionsSigned: true,
    },
    scores: { penaltyWeights: { NONE: 0, LOW: 1, MEDIUM: 3, HIGH: 9, SEVERE: 27 }, thresholds: [0.01, 0.05, 0.1, 0.25] },
    inboundTopic: { enabled: false },
    partialItems: null,
    transparency: { enabled: false, territorialScope: [], trustedFlaggers: [], accountType: null },
    management: { queues: 'file', sso: 'file' },
  };
}

const fold = (events: CatalogEvent[]) => events.reduce(orgConfigDecider.evolve, initialCatalogState);
const spec = deciderSpecification(orgConfigDecider);
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

  it("creates entities whose ids are names of Object's own members (constructor, toString, __proto__), then decides nothing", () => {
    const ids = ['constructor', 'toString', 'hasOwnProperty', '__proto__'];
    const d = desired({ policies: ids.map((id) => policy(id)), queues: ids.map((id) => queue(id)) });
    const first = planCatalog(apply(d), initialCatalogState);
    expect(first.created).toEqual([...ids.map((id) => ({ kind: 'policy', id })), ...ids.map((id) => ({ kind: 'queue', id }))]);
    expect(first.updated).toEqual([]);
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

  it('reads org settings recorded before wellness existed as its defaults; a file that changes them decides a new OrgSettingsChanged', () => {
    const d = desired({});
    const first = planCatalog(apply(d), initialCatalogState).events;
    const old = first.map((e) =>
      e.type === 'OrgSettingsChanged'
        ? ({ ...e, data: { settings: { requireDecisionReason: false, requirePolicyForDecisions: false, requireSecondFactor: false } } } as CatalogEvent)
        : e,
    );
    expect(orgConfigDecider.decide(apply(d), fold(old))).toEqual([]);
    const softer = {
      ...d,
      settings: { ...d.settings, wellness: { blur: 0 as const, greyscale: false, breakAfterItems: 10, loadMedia: 'ON_REVEAL' as const } },
    };
    const changed = orgConfigDecider.decide(apply(softer), fold(old));
    expect(changed).toEqual([{ type: 'OrgSettingsChanged', data: { settings: softer.settings } }]);
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

describe('org config decider: the scores section', () => {
  const stricter = (): DesiredCatalog => ({
    ...desired(),
    scores: { penaltyWeights: { NONE: 0, LOW: 2, MEDIUM: 3, HIGH: 9, SEVERE: 27 }, thresholds: [0, 0.05, 0.1, 0.25] },
  });

  it('given a stream from before scores existed, when the file states the defaults (or leaves the section out), then no score event', () => {
    const before = fold(planCatalog(apply(desired()), initialCatalogState).events);
    expect(before.scores).toBeNull();
    expect(planCatalog(apply(desired()), before).settingsChanged).not.toContain('scores');
  });

  it('given the defaults, when the file changes them, then one ScoreSettingsChanged with the whole section; applied again, nothing', () => {
    const state = fold(planCatalog(apply(desired()), initialCatalogState).events);
    const events = orgConfigDecider.decide(apply(stricter()), state);
    expect(events).toEqual([{ type: 'ScoreSettingsChanged', data: { scores: stricter().scores } }]);
    const changed = fold([...planCatalog(apply(desired()), initialCatalogState).events, ...events]);
    expect(changed.scores).toEqual(stricter().scores);
    expect(orgConfigDecider.decide(apply(stricter()), changed)).toEqual([]);
  });

  it('given changed scores, when the file goes back to the defaults, then ScoreSettingsChanged with the defaults', () => {
    const state = fold(orgConfigDecider.decide(apply(stricter()), initialCatalogState));
    const events = orgConfigDecider.decide(apply(desired()), state);
    expect(events).toContainEqual({ type: 'ScoreSettingsChanged', data: { scores: desired().scores } });
  });
});

describe('org config decider: the inboundTopic section', () => {
  const enabled = (): DesiredCatalog => ({ ...desired(), inboundTopic: { enabled: true } });

  it('given a stream from before inboundTopic existed, when the file leaves the section out (or disables it), then no event: the topic stays off', () => {
    const before = fold(planCatalog(apply(desired()), initialCatalogState).events);
    expect(before.inboundTopic).toBeNull();
    spec
      .given(planCatalog(apply(desired()), initialCatalogState).events)
      .when(apply(desired()))
      .then([]);
  });

  it('given the topic off, when the file enables it, then one InboundTopicSettingsChanged; applied again, nothing', () => {
    const history = planCatalog(apply(desired()), initialCatalogState).events;
    spec
      .given(history)
      .when(apply(enabled()))
      .then([{ type: 'InboundTopicSettingsChanged', data: { inboundTopic: { enabled: true } } }]);
    const plan = planCatalog(apply(enabled()), fold(history));
    expect(plan.settingsChanged).toEqual(['inboundTopic']);
    const on = [...history, ...plan.events];
    expect(fold(on).inboundTopic).toEqual({ enabled: true });
    spec.given(on).when(apply(enabled())).then([]);
  });

  it('given the topic enabled, when a file leaves the section out, then InboundTopicSettingsChanged turns it off', () => {
    const history: CatalogEvent[] = [
      ...planCatalog(apply(desired()), initialCatalogState).events,
      { type: 'InboundTopicSettingsChanged', data: { inboundTopic: { enabled: true } } },
    ];
    spec
      .given(history)
      .when(apply(desired()))
      .then([{ type: 'InboundTopicSettingsChanged', data: { inboundTopic: { enabled: false } } }]);
  });
});

describe('org config decider: the partialItems section', () => {
  const endpoint = {
    url: 'https://platform.example/warden/items?token=t0k',
    headers: { Authorization: 'Bearer s3cret' },
    timeoutMs: 2000,
    cacheSeconds: 300,
    maxConcurrency: 8,
    retries: 2,
  };
  const withEndpoint = (partialItems = endpoint): DesiredCatalog => ({ ...desired(), partialItems });
  const base = () => planCatalog(apply(desired()), initialCatalogState).events;

  it('given a stream from before partialItems existed, when the file leaves the section out, then no event: no endpoint', () => {
    expect(fold(base()).partialItems).toBeNull();
    spec.given(base()).when(apply(desired())).then([]);
  });

  it('given no endpoint, when the file names one, then one PartialItemsSettingsChanged; applied again, nothing', () => {
    spec
      .given(base())
      .when(apply(withEndpoint()))
      .then([{ type: 'PartialItemsSettingsChanged', data: { partialItems: endpoint } }]);
    const plan = planCatalog(apply(withEndpoint()), fold(base()));
    expect(plan.settingsChanged).toEqual(['partialItems']);
    const on = [...base(), ...plan.events];
    expect(fold(on).partialItems).toEqual(endpoint);
    spec.given(on).when(apply(withEndpoint())).then([]);
  });

  it('given an endpoint, when a header value (a secret) or the cache time changes, then the whole section is recorded again', () => {
    const on: CatalogEvent[] = [...base(), { type: 'PartialItemsSettingsChanged', data: { partialItems: endpoint } }];
    const rotated = { ...endpoint, headers: { Authorization: 'Bearer n3w' }, cacheSeconds: 60 };
    spec
      .given(on)
      .when(apply(withEndpoint(rotated)))
      .then([{ type: 'PartialItemsSettingsChanged', data: { partialItems: rotated } }]);
  });

  it('given an endpoint, when a file leaves the section out, then PartialItemsSettingsChanged to null removes it', () => {
    const on: CatalogEvent[] = [...base(), { type: 'PartialItemsSettingsChanged', data: { partialItems: endpoint } }];
    spec
      .given(on)
      .when(apply(desired()))
      .then([{ type: 'PartialItemsSettingsChanged', data: { partialItems: null } }]);
    expect(fold([...on, { type: 'PartialItemsSettingsChanged', data: { partialItems: null } }]).partialItems).toBeNull();
  });
});

describe('org config decider: the console changes the sso settings', () => {
  const IDP_CERT = readFileSync(new URL('../../../../examples/idp-example.pem', import.meta.url), 'utf8');
  const enabled = { saml_enabled: true, sso_url: 'https://idp.example/sso', jit: { enabled: true, defaultRoles: ['MODERATOR'] } };
  const change = (settings: Record<string, unknown>) => ({ type: 'ChangeSsoSettings' as const, settings });
  // A console change, on a history of console changes (a file's are refused: see "who manages it").
  const ssoChanged = (sso: SsoSettings): CatalogEvent => ({ type: 'SsoSettingsChanged', data: { sso, source: { managedBy: 'console', file: null } } });
  const defaults = desired().sso;
  const stored: SsoSettings = {
    ...defaults,
    saml_enabled: true,
    sso_url: 'https://idp.example/sso',
    cert: IDP_CERT,
    jit: { enabled: true, defaultRoles: ['MODERATOR'] },
  };
  /** The problems a refused change names, as pointer → detail. */
  const refusal = (settings: Record<string, unknown>, history: CatalogEvent[] = []) =>
    spec
      .given(history)
      .when(change(settings))
      .thenThrows(DomainError)
      .details.map((d) => [d.pointer, d.detail]);

  it('given no sso section, when the settings change, then one SsoSettingsChanged with the whole section and its defaults', () => {
    spec
      .given([])
      .when(change({ ...enabled, cert: IDP_CERT }))
      .then([ssoChanged(stored)]);
  });

  it('given no sso section, when the defaults are sent, then nothing: the defaults are what it had', () => {
    spec.given([]).when(change({})).thenNothing();
  });

  it('given a certificate, when a change leaves cert out, then the stored certificate is kept', () => {
    spec
      .given([ssoChanged(stored)])
      .when(change({ ...enabled, roleAttribute: 'groups', roleMap: { admins: ['ADMIN'] } }))
      .then([ssoChanged({ ...stored, roleAttribute: 'groups', roleMap: { admins: ['ADMIN'] } })]);
  });

  it('given settings, when the same settings are sent (with or without the certificate), then nothing', () => {
    spec
      .given([ssoChanged(stored)])
      .when(change(enabled))
      .thenNothing();
    spec
      .given([ssoChanged(stored)])
      .when(change({ ...enabled, cert: IDP_CERT }))
      .thenNothing();
  });

  it('given a certificate, when cert is null and SAML is off, then the certificate is removed', () => {
    spec
      .given([ssoChanged(stored)])
      .when(change({ cert: null }))
      .then([ssoChanged(defaults)]);
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
    spec
      .given([])
      .when(change({ cert: IDP_CERT }))
      .then([ssoChanged({ ...defaults, cert: IDP_CERT })]);
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
    expect(refusal({ ...enabled, cert: null }, [ssoChanged(stored)])).toEqual([['/cert', 'is required when saml_enabled is true']]);
  });
});

describe('org config decider: the console defines a review queue', () => {
  // Console definitions, on a history of console-made queues (a file's are refused: see "who manages it").
  const defined = (q: QueueDefinition): CatalogEvent =>
    ({ type: 'QueueDefined', data: { kind: 'queue', entity: q, source: { managedBy: 'console', file: null } } }) as CatalogEvent;
  const archived = (id: string): CatalogEvent => ({ type: 'QueueArchived', data: { kind: 'queue', id } }) as CatalogEvent;
  /** The console's DefineQueue, on the stream of `history`. */
  const define = (mode: 'create' | 'update', q: Record<string, unknown>, history: CatalogEvent[] = []) =>
    spec.given(history).when({ type: 'DefineQueue', mode, queue: q });
  const pointers = (error: DomainError) => error.details.map((d) => [d.pointer, d.detail]);

  it('given no queue, when one is created with only a name, then a QueueDefined with the file defaults and an id from the name', () => {
    define('create', { name: 'Hate speech' }).then([defined({ ...queue('hate-speech'), name: 'Hate speech' })]);
  });

  it('given a queue, when one of the same name is created without an id, then the id is suffixed; with that id, a conflict', () => {
    const history = [defined(queue('spam'))];
    define('create', { name: 'Spam' }, history).then([defined({ ...queue('spam-2'), name: 'Spam' })]);
    expect(define('create', { id: 'spam', name: 'Spam' }, history).thenThrows(DomainError).status).toBe(409);
  });

  it("given no queue, when one is created or updated with an id that names Object.prototype's members, then it is new (created) or missing (404), never found there", () => {
    for (const id of ['constructor', 'toString', '__proto__', 'valueOf']) {
      define('create', { id, name: 'Q' }).then([defined({ ...queue(id), name: 'Q' })]);
      expect(define('update', { id, name: 'Q' }).thenThrows(DomainError).status).toBe(404);
    }
    define('create', { name: 'constructor' }).then([defined({ ...queue('constructor'), name: 'constructor' })]);
  });

  it('given an archived queue, when it is created again, then it is defined again', () => {
    define('create', { id: 'old', name: 'old' }, [defined(queue('old')), archived('old')]).then([defined(queue('old'))]);
  });

  it('given a queue, when it is updated, then the whole definition is replaced; the same again decides nothing', () => {
    const change = { id: 'spam', name: 'Spam', order: 'PRIORITY', lockTimeoutSeconds: 120, autoCloseAfterDays: 7 };
    const events = define('update', change, [defined(queue('spam'))]).then([defined({ ...queue('spam'), ...change, order: 'PRIORITY' })]);
    define('update', change, [defined(queue('spam')), ...events]).thenNothing();
  });

  it('refuses an update of a queue that does not exist or was archived (404)', () => {
    expect(define('update', { id: 'nope', name: 'x' }).thenThrows(DomainError).status).toBe(404);
    expect(define('update', { id: 'old', name: 'x' }, [defined(queue('old')), archived('old')]).thenThrows(DomainError).status).toBe(404);
  });

  it('refuses what the file refuses, each at its pointer: the reserved id, bad values, unknown keys', () => {
    expect(pointers(define('create', { id: 'child-safety', name: 'CS' }).thenThrows(DomainError))).toEqual([
      ['/id', '"child-safety" is reserved for the built-in child-safety queue'],
    ]);
    const bad = define('create', { name: ' ', lockTimeoutSeconds: 0, order: 'LIFO', colour: 'red' }).thenThrows(DomainError);
    expect(bad.status).toBe(400);
    expect(
      pointers(bad)
        .map(([p]) => p)
        .sort(),
    ).toEqual(['/colour', '/id', '/lockTimeoutSeconds', '/name', '/order']); // a blank name gives no id to derive
  });

  it('refuses a second default or appeals default at its field, and allows moving it once unset', () => {
    const history = [defined({ ...queue('main'), isDefault: true }), defined({ ...queue('appeals'), isAppealsDefault: true })];
    expect(pointers(define('create', { id: 'other', name: 'Other', isDefault: true }, history).thenThrows(DomainError))).toEqual([
      ['/isDefault', 'only one queue may be the default (queue main already is; unset it there first)'],
    ]);
    expect(define('create', { id: 'other', name: 'Other', isAppealsDefault: true }, history).thenThrows(DomainError).details[0]!.pointer).toBe(
      '/isAppealsDefault',
    );
    // The holder itself may keep its flag.
    define('update', { id: 'main', name: 'Main', isDefault: true }, history).then([defined({ ...queue('main'), name: 'Main', isDefault: true })]);
    const unset = [defined({ ...queue('main'), isDefault: false })];
    define('create', { id: 'other', name: 'Other', isDefault: true }, unset).then([defined({ ...queue('other'), name: 'Other', isDefault: true })]);
  });
});

describe('org config decider: who manages a queue or the SSO settings (a file or the console)', () => {
  const FROM_FILE = { managedBy: 'file', file: 'acme.yaml' } as const;
  const FROM_CONSOLE = { managedBy: 'console', file: null } as const;
  const queueDefined = (q: QueueDefinition, source?: { managedBy: 'file' | 'console'; file: string | null }): CatalogEvent =>
    ({ type: 'QueueDefined', data: source ? { kind: 'queue', entity: q, source } : { kind: 'queue', entity: q } }) as CatalogEvent;
  const managementChanged = (queues: 'file' | 'console', sso: 'file' | 'console' = 'file'): CatalogEvent => ({
    type: 'ManagementSettingsChanged',
    data: { management: { queues, sso } },
  });
  const withManagement = (d: DesiredCatalog, queues: 'file' | 'console', sso: 'file' | 'console' = 'file'): DesiredCatalog => ({
    ...d,
    management: { queues, sso },
  });
  const applyFile = (d: DesiredCatalog, prune = false) => ({ type: 'ApplyCatalog' as const, desired: d, prune, file: 'acme.yaml' });
  const edit = (q: Record<string, unknown>) => ({ type: 'DefineQueue' as const, mode: 'update' as const, queue: q });
  const renamed = { ...queue('spam'), name: 'Spam (console)' };

  it('given nothing, when a file is applied, then its queues and SSO settings record the file as their source', () => {
    const events = spec
      .given([])
      .when(applyFile(desired({ queues: [queue('spam')] })))
      .events();
    expect(events).toContainEqual(queueDefined(queue('spam'), FROM_FILE));
    expect(events).toContainEqual({ type: 'SsoSettingsChanged', data: { sso: desired().sso, source: FROM_FILE } });
    const state = fold(events);
    expect(state.entities.queue['spam']!.source).toEqual(FROM_FILE);
    expect(state.ssoSource).toEqual(FROM_FILE);
  });

  it('given a queue the file defined, when the console changes it, then refused (409) naming the file', () => {
    const refusal = spec
      .given([queueDefined(queue('spam'), FROM_FILE)])
      .when(edit({ ...renamed }))
      .thenThrows(DomainError);
    expect(refusal.status).toBe(409);
    expect(refusal.details[0]!.detail).toMatch(/Queue spam is managed by the configuration file acme\.yaml.*management: \{ queues: console \}/);
  });

  it('given a queue defined before sources were recorded, when the console changes it, then refused naming no file', () => {
    spec
      .given([queueDefined(queue('spam'))])
      .when(edit({ ...renamed }))
      .thenThrows(DomainError, (e) => e.status === 409 && /organization's configuration file/.test(e.details[0]!.detail!));
  });

  it('given the file hands queues to the console, when the console changes a file queue, then a QueueDefined recording the console', () => {
    spec
      .given([queueDefined(queue('spam'), FROM_FILE), managementChanged('console')])
      .when(edit({ ...renamed }))
      .then([queueDefined(renamed, FROM_CONSOLE)]);
  });

  it('given SSO settings the file set, when the console changes them, then refused naming the file; handed to the console, accepted', () => {
    const fromFile: CatalogEvent = { type: 'SsoSettingsChanged', data: { sso: desired().sso, source: FROM_FILE } };
    const change = { type: 'ChangeSsoSettings' as const, settings: { jit: { enabled: true, defaultRoles: ['MODERATOR'] } } };
    spec
      .given([fromFile])
      .when(change)
      .thenThrows(DomainError, (e) => e.status === 409 && /SSO settings are managed by the configuration file acme\.yaml/.test(e.details[0]!.detail!));
    spec
      .given([fromFile, managementChanged('file', 'console')])
      .when(change)
      .then([{ type: 'SsoSettingsChanged', data: { sso: { ...desired().sso, jit: { enabled: true, defaultRoles: ['MODERATOR'] } }, source: FROM_CONSOLE } }]);
  });

  it('given a console change under console management, when the file is applied, then it is left and listed as drift', () => {
    const history = [
      ...planCatalog(applyFile(withManagement(desired({ queues: [queue('spam')] }), 'console')), initialCatalogState).events,
      queueDefined(renamed, FROM_CONSOLE),
      queueDefined(queue('extra'), FROM_CONSOLE),
    ];
    const plan = planCatalog(applyFile(withManagement(desired({ queues: [queue('spam')] }), 'console'), true), fold(history));
    expect(plan.events).toEqual([]);
    expect(plan.archived).toEqual([]);
    expect(plan.drift).toEqual([
      { kind: 'queue', id: 'spam', outcome: 'leave' },
      { kind: 'queue', id: 'extra', outcome: 'leave' },
    ]);
  });

  it('given console changes under file management, when the file is applied, then the file overwrites (even when equal) and --prune archives what it lacks', () => {
    const history = [
      ...planCatalog(applyFile(desired({ queues: [queue('spam')] })), initialCatalogState).events,
      queueDefined(renamed, FROM_CONSOLE),
      queueDefined(queue('extra'), FROM_CONSOLE),
    ];
    const state = fold(history);
    const kept = planCatalog(applyFile(desired({ queues: [queue('spam')] })), state);
    expect(kept.events).toEqual([queueDefined(queue('spam'), FROM_FILE)]);
    expect(kept.drift).toEqual([
      { kind: 'queue', id: 'spam', outcome: 'overwrite' },
      { kind: 'queue', id: 'extra', outcome: 'leave' },
    ]);
    const pruned = planCatalog(applyFile(desired({ queues: [queue('spam')] }), true), state);
    expect(pruned.drift[1]).toEqual({ kind: 'queue', id: 'extra', outcome: 'archive' });
    expect(pruned.archived).toEqual([{ kind: 'queue', id: 'extra' }]);
    // The console's queue, equal to the file's, is taken back by the file; applied again: nothing.
    const retaken = [...history, queueDefined(queue('spam'), FROM_CONSOLE)];
    expect(planCatalog(applyFile(desired({ queues: [queue('spam')] })), fold(retaken)).events).toEqual([queueDefined(queue('spam'), FROM_FILE)]);
    const back = [...retaken, queueDefined(queue('spam'), FROM_FILE), { type: 'QueueArchived', data: { kind: 'queue', id: 'extra' } } as CatalogEvent];
    expect(planCatalog(applyFile(desired({ queues: [queue('spam')] })), fold(back)).events).toEqual([]);
  });

  it('given SSO settings changed in the console, when the file is applied, then overwritten (file management) or left (console management)', () => {
    const history = [
      ...planCatalog(applyFile(desired()), initialCatalogState).events,
      { type: 'SsoSettingsChanged', data: { sso: { ...desired().sso, passwordLogin: true, roleAttribute: 'groups' }, source: FROM_CONSOLE } } as CatalogEvent,
    ];
    const state = fold(history);
    const overwritten = planCatalog(applyFile(desired()), state);
    expect(overwritten.events).toEqual([{ type: 'SsoSettingsChanged', data: { sso: desired().sso, source: FROM_FILE } }]);
    expect(overwritten.drift).toEqual([{ kind: 'sso', id: 'sso', outcome: 'overwrite' }]);
    const left = planCatalog(applyFile(withManagement(desired(), 'file', 'console')), state);
    expect(left.events).toEqual([{ type: 'ManagementSettingsChanged', data: { management: { queues: 'file', sso: 'console' } } }]);
    expect(left.drift).toEqual([{ kind: 'sso', id: 'sso', outcome: 'leave' }]);
  });
});
