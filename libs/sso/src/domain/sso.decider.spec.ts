import { describe, expect, it } from 'vitest';
import { deciderSpecification } from '#warden/kernel';
import { type SamlAssertionCommand, samlAssertionDecider } from './saml-assertion.decider.js';
import { rolesFromGroups, emailOf } from './saml-identity.js';
import { type SsoLoginFailureCommand, ssoLoginFailureDecider } from './sso-login-failure.decider.js';
import { SsoRefusal } from './sso-refusal.js';
import type { SamlAssertionEvent, SsoLoginEvent } from './sso.events.js';

const accept: SamlAssertionCommand = { type: 'AcceptSamlAssertion', orgId: 'acme', assertionDigest: 'd1', notOnOrAfter: '2026-01-01T00:05:00.000Z' };
const accepted: SamlAssertionEvent = {
  type: 'SamlAssertionAccepted',
  data: { orgId: 'acme', assertionDigest: 'd1', notOnOrAfter: '2026-01-01T00:05:00.000Z' },
};

describe('saml assertion decider', () => {
  const spec = deciderSpecification(samlAssertionDecider);

  it('accepts an assertion the first time', () => {
    spec.given([]).when(accept).then([accepted]);
  });

  it('refuses it as a replay once accepted', () => {
    const refusal = spec.given([accepted]).when(accept).thenThrows(SsoRefusal);
    expect(refusal.reason).toBe('replayed');
    expect(refusal.status).toBe(401);
  });
});

describe('sso login failure decider', () => {
  const record: SsoLoginFailureCommand = { type: 'RecordSsoLoginFailure', orgId: 'acme', attemptId: 'sso_1', reason: 'expired' };
  const failed: SsoLoginEvent = { type: 'SsoLoginFailed', data: { orgId: 'acme', attemptId: 'sso_1', reason: 'expired' } };
  const spec = deciderSpecification(ssoLoginFailureDecider);

  it('records a refused attempt once', () => {
    spec.given([]).when(record).then([failed]);
    spec.given([failed]).when(record).thenNothing();
  });
});

describe('role mapping and the email of an assertion', () => {
  const settings = {
    roleAttribute: 'groups',
    roleMap: { admins: ['ADMIN' as const], mods: ['MODERATOR' as const, 'ANALYST' as const], both: ['ADMIN' as const] },
    jit: { defaultRoles: ['MODERATOR' as const] },
  };

  it('grants the union of the mapped groups, ignoring unmapped ones', () => {
    expect(rolesFromGroups(settings, ['mods', 'admins', 'both', 'lunch-club'])).toEqual(['MODERATOR', 'ANALYST', 'ADMIN']);
  });

  it("maps an IdP group named like one of Object's members (constructor, toString, __proto__) as any unmapped group", () => {
    expect(rolesFromGroups(settings, ['constructor', 'toString', '__proto__', 'hasOwnProperty'])).toEqual(['MODERATOR']);
    expect(rolesFromGroups({ ...settings, roleMap: { ...settings.roleMap, constructor: ['ADMIN' as const] } }, ['constructor'])).toEqual(['ADMIN']);
  });

  it('falls back to the default roles when no group maps, and to none without them', () => {
    expect(rolesFromGroups(settings, ['lunch-club'])).toEqual(['MODERATOR']);
    expect(rolesFromGroups({ ...settings, jit: { defaultRoles: [] } }, [])).toEqual([]);
  });

  it('takes no roles from the IdP without roleAttribute', () => {
    expect(rolesFromGroups({ ...settings, roleAttribute: null }, ['admins'])).toBeNull();
  });

  it('takes NameID when it is an email, else an email attribute, lower-cased', () => {
    expect(emailOf('Ada@Acme.Example', {})).toBe('ada@acme.example');
    expect(emailOf('opaque-id-123', { mail: ['Ada@acme.example'] })).toBe('ada@acme.example');
    expect(emailOf('opaque-id-123', { groups: ['x'] })).toBeNull();
  });

  it("takes an address's shape, normalized as identity does (the account may predate identity's rule); NameID first", () => {
    // Quotes are an address's shape: an account created before the rule may hold one, and finds it.
    expect(emailOf('"ada"@acme.example', { mail: ['bob@acme.example'] })).toBe('"ada"@acme.example');
    expect(emailOf(' E\u0301ve@Acme.Example ', {})).toBe('\u00e9ve@acme.example');
    expect(emailOf('ada @acme.example', { mail: ['bob@acme.example'] })).toBe('bob@acme.example');
  });
});
