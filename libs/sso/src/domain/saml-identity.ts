import type { SsoSettings } from '#warden/catalog/contracts';
import { isRole, normalizeEmail, type Role } from '#warden/identity/contracts';
import { ownValue } from '#warden/kernel';

/** Who a verified assertion names, as the sign-in needs it. */
export interface SamlIdentity {
  /** Lower-cased: emails are compared without regard to case. */
  readonly email: string;
  /**
   * The IdP groups in `roleAttribute` (none when the assertion lacks it); null when the
   * organization takes no roles from the IdP.
   */
  readonly groups: readonly string[] | null;
  readonly assertionId: string;
  readonly notOnOrAfter: string | null;
  /** The id of the AuthnRequest the response answers (checked to be one of ours, for this organization). */
  readonly inResponseTo: string;
  /**
   * When the IdP last authenticated the user (the AuthnStatement's AuthnInstant, ISO time), or
   * null when it names none or not a time: an IdP that reuses its own session answers even a
   * ForceAuthn request with an earlier instant, which the recent-sign-in check then sees.
   */
  readonly authenticatedAt: string | null;
}

/** An AuthnInstant as an ISO time, or null when it is not an xs:dateTime with its zone (or Z). */
export function authnInstantOf(value: unknown): string | null {
  if (typeof value !== 'string' || !/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/.test(value)) return null;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? null : new Date(ms).toISOString();
}

/** Attribute names IdPs commonly put the email in, when NameID is not an email. */
export const EMAIL_ATTRIBUTES = [
  'email',
  'mail',
  'emailAddress',
  'http://schemas.xmlsoap.org/ws/2005/05/identity/claims/emailaddress',
  'urn:oid:0.9.2342.19200300.100.1.3',
] as const;

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/**
 * The email of a verified assertion: NameID when it has an address's shape, else the first email
 * attribute, normalized as identity normalizes addresses. Only the shape is asked for here: the
 * address finds an existing account by its digest, and an account may hold an address that
 * identity's rule refuses today (created before the rule). Creating an account just in time asks
 * for the rule (SsoUserSignIn, identity's accountEmail).
 */
export function emailOf(nameId: string | undefined, attributes: Readonly<Record<string, unknown>>): string | null {
  const candidates = [nameId, ...EMAIL_ATTRIBUTES.flatMap((name) => valuesOf(attributes[name]))];
  const email = candidates.find((c): c is string => typeof c === 'string' && EMAIL.test(c.trim()));
  return email === undefined ? null : normalizeEmail(email);
}

/** An attribute's values: IdPs send one value as a string and several as a list. */
export function valuesOf(value: unknown): string[] {
  if (value === undefined || value === null) return [];
  return (Array.isArray(value) ? value : [value]).filter((v): v is string => typeof v === 'string');
}

/**
 * The roles a sign-in gives, or null when the organization takes no roles from the IdP. With
 * `roleAttribute` set the IdP is the source of roles, at every sign-in: the union of what the
 * user's groups map to, or `jit.defaultRoles` when no group maps (so a group taken away at the
 * IdP takes its roles away here). Empty means the user may not sign in: a user has a role.
 */
export function rolesFromGroups(
  settings: Pick<SsoSettings, 'roleAttribute' | 'roleMap'> & { jit: Pick<SsoSettings['jit'], 'defaultRoles'> },
  groups: readonly string[] | null,
): Role[] | null {
  if (settings.roleAttribute === null || groups === null) return null;
  const roles = new Set<Role>();
  // Own properties only: an IdP group named `constructor` or `__proto__` is a group, not Object's.
  for (const group of groups) for (const role of ownValue(settings.roleMap, group) ?? []) if (isRole(role)) roles.add(role);
  return roles.size > 0 ? [...roles] : [...settings.jit.defaultRoles];
}

/** Two role lists grant the same when they hold the same roles, in any order. */
export function sameRoles(a: readonly Role[], b: readonly Role[]): boolean {
  const set = new Set(a);
  return set.size === new Set(b).size && b.every((r) => set.has(r));
}
