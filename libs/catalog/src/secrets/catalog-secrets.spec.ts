import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { type RecordedEvent, UpcasterRegistry } from '#warden/kernel';
import { Keyring } from '#warden/storage';
import { callbackUrlUpcasters } from './callback-url.upcasters.js';
import { openSecrets, sealSecrets } from './catalog-secrets.js';

const keyring = new Keyring([randomBytes(32)]);
// Secrets with a dot: no base64 ciphertext can contain them by chance (a 3-letter one did, now and then).
const URL_WITH_TOKEN = 'https://user:pa55.w@hooks.example/cb?token=s3cret.t';
const action = (callback: Record<string, unknown>) => ({
  type: 'ActionDefined',
  data: { kind: 'action', entity: { id: 'remove', name: 'Remove', kind: 'CUSTOMER_DEFINED_ACTION', callback } },
});

describe('callback URLs in catalog events', () => {
  it('are sealed whole, keeping only the URL without user info or query string in plaintext, and open to the whole URL', () => {
    const sealed = sealSecrets(action({ url: URL_WITH_TOKEN, headers: { Authorization: 'Bearer t0k.n' } }), keyring);
    const text = JSON.stringify(sealed);
    for (const secret of ['s3cret.t', 'pa55.w', 't0k.n']) expect(text).not.toContain(secret);
    expect(sealed.data.entity.callback).toMatchObject({ url: 'https://hooks.example/cb?…', sealedUrl: { kid: keyring.currentKid } });
    expect(openSecrets(sealed, keyring).data.entity.callback).toEqual({ url: URL_WITH_TOKEN, headers: { Authorization: 'Bearer t0k.n' } });
  });

  it('open as they are when an earlier release stored them in plaintext', () => {
    const stored = action({ url: URL_WITH_TOKEN, headers: {} });
    expect(openSecrets(stored, keyring).data.entity.callback).toEqual({ url: URL_WITH_TOKEN, headers: {} });
  });
});

describe('callback URL upcasters (ActionDefined, AppealSettingsChanged v1 → v2)', () => {
  const registry = new UpcasterRegistry();
  registry.register(...callbackUrlUpcasters(keyring));
  const recorded = (type: string, data: Record<string, unknown>, schemaVersion = 1): RecordedEvent => ({
    id: 'e-1',
    type,
    streamName: 'org_config-acme',
    revision: 0,
    position: 1,
    data: data as RecordedEvent['data'],
    metadata: { orgId: 'acme', correlationId: 'c', causationId: null, actor: 'cli', occurredAt: '2026-11-01T00:00:00.000Z', schemaVersion },
  });

  it('seal the plaintext URL of a stored v1 event on read', () => {
    const read = registry.upcast(recorded('ActionDefined', action({ url: URL_WITH_TOKEN, headers: {} }).data));
    expect(read.metadata.schemaVersion).toBe(2);
    expect(JSON.stringify(read.data)).not.toContain('s3cret.t');
    expect(openSecrets(read, keyring).data).toEqual(action({ url: URL_WITH_TOKEN, headers: {} }).data);

    const appeals = registry.upcast(recorded('AppealSettingsChanged', { appeals: { callback: { url: URL_WITH_TOKEN, headers: {} }, body: {} } }));
    expect(JSON.stringify(appeals.data)).not.toContain('s3cret.t');
    expect(openSecrets(appeals, keyring).data).toEqual({ appeals: { callback: { url: URL_WITH_TOKEN, headers: {} }, body: {} } });
  });

  it('leave events without a callback alone, and write new events at v2', () => {
    const noCallback = { kind: 'action', entity: { id: 'mrt', callback: null } };
    expect(registry.upcast(recorded('ActionDefined', noCallback)).data).toEqual(noCallback);
    expect(registry.upcast(recorded('AppealSettingsChanged', { appeals: { callback: null } })).data).toEqual({ appeals: { callback: null } });
    expect(registry.currentVersion('ActionDefined')).toBe(2);
    expect(registry.currentVersion('AppealSettingsChanged')).toBe(2);
  });
});

describe("the Transparency Database's endpoint and token in catalog events", () => {
  it('are sealed in TransparencySettingsChanged and open to what the file said', () => {
    const submission = { url: 'https://sandbox.example/api/v1/statements?k=s3cret.q', headers: { authorization: 'Bearer t0k.n' } };
    const event = {
      type: 'TransparencySettingsChanged',
      data: { transparency: { enabled: true, territorialScope: ['DE'], trustedFlaggers: [], accountType: null, submission } },
    };
    const sealed = sealSecrets(event, keyring);
    const text = JSON.stringify(sealed);
    for (const secret of ['s3cret.q', 't0k.n']) expect(text).not.toContain(secret);
    expect(openSecrets(sealed, keyring)).toEqual(event);
    const without = {
      type: 'TransparencySettingsChanged',
      data: { transparency: { enabled: false, territorialScope: [], trustedFlaggers: [], accountType: null } },
    };
    expect(sealSecrets(without, keyring)).toEqual(without);
  });
});
