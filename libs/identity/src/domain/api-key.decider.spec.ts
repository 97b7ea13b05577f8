import { describe, expect, it } from 'vitest';
import { DomainError, foldEvents } from '#warden/kernel';
import { apiKeyDecider, type ApiKeyCommand } from './api-key.decider.js';
import type { ApiKeyEvent } from './identity.events.js';
import { organizationDecider } from './organization.decider.js';

const created: ApiKeyEvent = {
  type: 'ApiKeyCreated',
  data: { keyId: 'k1', orgId: 'acme', name: 'ci', team: null, hash: 'h', prefix: 'wdn_abc', rotatedFrom: null },
};

function given(events: ApiKeyEvent[], command: ApiKeyCommand) {
  return apiKeyDecider.decide(command, foldEvents(apiKeyDecider, events));
}

describe('api key decider', () => {
  it('creates a key once', () => {
    const cmd: ApiKeyCommand = { type: 'CreateApiKey', ...created.data };
    expect(given([], cmd)).toEqual([created]);
    expect(() => given([created], cmd)).toThrow(/already exists/);
  });

  it('rotates an active key and refuses to rotate it twice', () => {
    const rotate: ApiKeyCommand = { type: 'RotateApiKey', keyId: 'k1', orgId: 'acme', replacedBy: 'k2' };
    const rotated = given([created], rotate);
    expect(rotated).toEqual([{ type: 'ApiKeyRotated', data: { keyId: 'k1', replacedBy: 'k2' } }]);
    expect(() => given([created, ...rotated], rotate)).toThrow(/already rotated/);
  });

  it('revokes idempotently, and never across organizations', () => {
    const revoke: ApiKeyCommand = { type: 'RevokeApiKey', keyId: 'k1', orgId: 'acme' };
    const revoked = given([created], revoke);
    expect(revoked).toEqual([{ type: 'ApiKeyRevoked', data: { keyId: 'k1' } }]);
    expect(given([created, ...revoked], revoke)).toEqual([]);
    expect(() => given([created], { ...revoke, orgId: 'other' })).toThrow(DomainError);
    expect(() => given([], revoke)).toThrow(/No API key/);
  });
});

describe('organization decider', () => {
  it('creates an organization once, with a valid id and name', () => {
    const cmd = { type: 'CreateOrganization' as const, orgId: 'acme', name: ' Acme ' };
    const events = organizationDecider.decide(cmd, organizationDecider.initialState);
    expect(events).toEqual([{ type: 'OrganizationCreated', data: { orgId: 'acme', name: 'Acme' } }]);
    expect(() => organizationDecider.decide(cmd, foldEvents(organizationDecider, events))).toThrow(/already exists/);
    expect(() => organizationDecider.decide({ ...cmd, orgId: 'Bad Id' }, organizationDecider.initialState)).toThrow(
      DomainError,
    );
  });
});
