import { describe, expect, it } from 'vitest';
import { type RecordedEvent, UpcasterRegistry } from '#warden/kernel';
import { definitionSourceUpcasters } from './definition-source.upcasters.js';
import { queueDefinitionUpcasters } from './queue-definition.upcasters.js';
import { ssoSettingsUpcasters } from './sso-settings.upcasters.js';

const recorded = (type: string, data: object, actor: string, schemaVersion: number): RecordedEvent =>
  ({
    type,
    data,
    metadata: { orgId: 'acme', correlationId: 'c', causationId: null, actor, occurredAt: '2026-11-23T12:00:00.000Z', schemaVersion },
  }) as unknown as RecordedEvent;

const queue = { id: 'spam', name: 'Spam', isDefault: false, isAppealsDefault: false, lockTimeoutSeconds: 600, order: 'FIFO', autoCloseAfterDays: null };

describe('QueueDefined and SsoSettingsChanged: the source of events written before it was recorded', () => {
  const registry = new UpcasterRegistry();
  registry.register(...ssoSettingsUpcasters, ...queueDefinitionUpcasters, ...definitionSourceUpcasters);

  it('writes version 3 of both', () => {
    expect(registry.currentVersion('QueueDefined')).toBe(3);
    expect(registry.currentVersion('SsoSettingsChanged')).toBe(3);
  });

  it("reads an apply's event (actor cli) as the file's, name unknown, and a console user's as the console's", () => {
    expect(registry.upcast(recorded('QueueDefined', { kind: 'queue', entity: queue }, 'cli', 2)).data).toEqual({
      kind: 'queue',
      entity: queue,
      source: { managedBy: 'file', file: null },
    });
    expect(registry.upcast(recorded('QueueDefined', { kind: 'queue', entity: queue }, 'user:usr_1', 2)).data).toMatchObject({
      source: { managedBy: 'console', file: null },
    });
    const sso = registry.upcast(recorded('SsoSettingsChanged', { sso: { saml_enabled: false, sso_url: null, cert: null } }, 'user:usr_1', 1)).data;
    expect(sso).toMatchObject({ sso: { saml_enabled: false, passwordLogin: true }, source: { managedBy: 'console', file: null } });
  });

  it('leaves a v3 event as it is', () => {
    const v3 = recorded('QueueDefined', { kind: 'queue', entity: queue, source: { managedBy: 'file', file: 'acme.yaml' } }, 'cli', 3);
    expect(registry.upcast(v3)).toBe(v3);
  });
});
