/**
 * Identity's framework-free contracts: the events it owns, declared once (docs/architecture.md,
 * "Events"), their personal-data rules, the invitation link, and the roles of dashboard users and
 * what each may do (the access table). Other modules' `domain/` code and the infrastructure's
 * console guard import these from `#warden/identity/contracts`, which reaches no Nest, database or
 * network code (checked by dependency-cruiser); `#warden/identity` re-exports them.
 */
import type { PersonalDataRules } from '#warden/kernel';

export * from './domain/access.js';

export type * from './domain/identity.events.js';
export { IDENTITY_EVENT_TYPES } from './domain/identity.events.js';
/**
 * Addresses: the form two spellings share (normalizeEmail), whether an account may have one
 * (accountEmail, SSO's just-in-time check), and the digest that keys an account's sign-in throttle
 * (SSO's per-account count too).
 */
export { accountEmail, emailDigest, normalizeEmail } from './domain/user-email.js';
export type * from './domain/user.events.js';
export { USER_EVENT_TYPES } from './domain/user.events.js';
export type * from './domain/second-factor.events.js';
export { SECOND_FACTOR_EVENT_TYPES } from './domain/second-factor.events.js';
export { invitationLink } from './domain/invitation-token.js';

export const IDENTITY_PERSONAL_DATA: PersonalDataRules = {
  // A user's email is personal data, sealed under the user's id.
  UserCreated: { subject: (e) => (typeof e.data['userId'] === 'string' ? e.data['userId'] : undefined), fields: ['email'] },
};
