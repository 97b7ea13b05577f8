import { describe, expect, it } from 'vitest';
import { deciderSpecification, DomainError, foldEvents } from '#warden/kernel';
import { apiKeyDecider, type ApiKeyCommand } from './api-key.decider.js';
import type { ApiKeyEvent } from './identity.events.js';
import { organizationDecider } from './organization.decider.js';

const created: ApiKeyEvent = {
  type: 'ApiKeyCreated',
  data: { keyId: 'k1', orgId: 'acme', name: 'ci', team: null, hash: 'h', prefix: 'wdn_abc', rotatedFrom: null },
};

const spec = deciderSpecification(apiKeyDecider);

describe('api key decider', () => {
  it('creates a key once', () => {
    const cmd: ApiKeyCommand = { type: 'CreateApiKey', ...created.data };
    spec.given([]).when(cmd).then([created]);
    spec
      .given([created])
      .when(cmd)
      .thenThrows(/already exists/);
  });

  it('rotates an active key and refuses to rotate it twice', () => {
    const rotate: ApiKeyCommand = { type: 'RotateApiKey', keyId: 'k1', orgId: 'acme', replacedBy: 'k2' };
    const rotated = spec
      .given([created])
      .when(rotate)
      .then([{ type: 'ApiKeyRotated', data: { keyId: 'k1', replacedBy: 'k2' } }]);
    spec
      .given([created, ...rotated])
      .when(rotate)
      .thenThrows(/already rotated/);
  });

  it('revokes idempotently, and never across organizations', () => {
    const revoke: ApiKeyCommand = { type: 'RevokeApiKey', keyId: 'k1', orgId: 'acme' };
    const revoked = spec
      .given([created])
      .when(revoke)
      .then([{ type: 'ApiKeyRevoked', data: { keyId: 'k1' } }]);
    spec
      .given([created, ...revoked])
      .when(revoke)
      .thenNothing();
    spec
      .given([created])
      .when({ ...revoke, orgId: 'other' })
      .thenThrows(DomainError);
    spec
      .given([])
      .when(revoke)
      .thenThrows(/No API key/);
  });
});

describe('organization decider', () => {
  it('creates an organization once, with a valid id and name', () => {
    const cmd = { type: 'CreateOrganization' as const, orgId: 'acme', name: ' Acme ' };
    const events = organizationDecider.decide(cmd, organizationDecider.initialState);
    expect(events).toEqual([{ type: 'OrganizationCreated', data: { orgId: 'acme', name: 'Acme' } }]);
    expect(() => organizationDecider.decide(cmd, foldEvents(organizationDecider, events))).toThrow(/already exists/);
    expect(() => organizationDecider.decide({ ...cmd, orgId: 'Bad Id' }, organizationDecider.initialState)).toThrow(DomainError);
  });
});
