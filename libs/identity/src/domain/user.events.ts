import type { DomainEvent } from '#warden/kernel';
import type { Role } from './access.js';

export type UserState = 'invited' | 'active' | 'disabled';
export type SessionMethod = 'password' | 'saml';

/**
 * `email` is personal data, sealed under the user's id (PersonalDataPolicy); it reads back as
 * null once the user's key is forgotten. `emailDigest` names the address without revealing it.
 */
export type UserCreated = DomainEvent<
  'UserCreated',
  {
    userId: string;
    orgId: string;
    email: string | null;
    emailDigest: string;
    roles: Role[];
    state: 'active' | 'invited';
    /** A self-describing scrypt hash (password-hasher.ts), never the password. */
    passwordHash: string | null;
  }
>;
/** A one-time invitation: only the SHA-256 of its token is recorded. */
export type UserInvited = DomainEvent<'UserInvited', { userId: string; tokenHash: string; expiresAt: string }>;
export type UserInvitationAccepted = DomainEvent<'UserInvitationAccepted', { userId: string; passwordHash: string }>;
export type UserPasswordSet = DomainEvent<'UserPasswordSet', { userId: string; passwordHash: string }>;
/** The same password hashed again with the current parameters at a sign-in (sessions stay open). */
export type UserPasswordRehashed = DomainEvent<'UserPasswordRehashed', { userId: string; passwordHash: string }>;
export type UserRolesChanged = DomainEvent<'UserRolesChanged', { userId: string; previousRoles: Role[]; roles: Role[] }>;
export type UserDisabled = DomainEvent<'UserDisabled', { userId: string }>;
/** Back to `active`, or to `invited` for a user who never had a password but has an invitation. */
export type UserEnabled = DomainEvent<'UserEnabled', { userId: string; state: 'active' | 'invited' }>;
/**
 * A sign-in: the session's token and CSRF token are recorded as SHA-256 hashes only.
 * `authenticatedAt`, when the IdP authenticated the user before the sign-in (its AuthnInstant);
 * absent (every session before it was recorded, and a password sign-in): at the sign-in.
 */
export type ConsoleSessionOpened = DomainEvent<
  'ConsoleSessionOpened',
  { userId: string; sessionId: string; tokenHash: string; csrfTokenHash: string; method: SessionMethod; expiresAt: string; authenticatedAt?: string }
>;
export type ConsoleSessionClosed = DomainEvent<
  'ConsoleSessionClosed',
  { userId: string; sessionId: string; tokenHash: string; reason: 'logout' | 'revoked' | 'password-changed' | 'expired' }
>;

export type UserEvent =
  | UserCreated
  | UserInvited
  | UserInvitationAccepted
  | UserPasswordSet
  | UserPasswordRehashed
  | UserRolesChanged
  | UserDisabled
  | UserEnabled
  | ConsoleSessionOpened
  | ConsoleSessionClosed;

/** The claim of one normalized address by one user: the deployment-wide uniqueness of emails. */
export type UserEmailClaimed = DomainEvent<'UserEmailClaimed', { emailDigest: string; userId: string; orgId: string }>;
/**
 * A free address held for an invited user until the invitation is accepted (then `UserEmailClaimed`
 * for the same user). Unlike a claim, another organization's invitee who accepts first takes it.
 */
export type UserEmailReserved = DomainEvent<'UserEmailReserved', { emailDigest: string; userId: string; orgId: string }>;
/**
 * An organization invited the address while another organization's user held it: its invited
 * user, found again when the organization invites the address again, and who may take the address
 * by accepting if the holder's is only a reservation. Also recorded for a reserving user whose
 * reservation another organization's invitee took.
 */
export type UserEmailInviteeRecorded = DomainEvent<'UserEmailInviteeRecorded', { emailDigest: string; userId: string; orgId: string }>;
export type UserEmailEvent = UserEmailClaimed | UserEmailReserved | UserEmailInviteeRecorded;

/**
 * A failed sign-in, on the access-audit stream of the user's organization, or of the deployment
 * for an address that has no account. Never the password, never the address in plain text.
 */
export type ConsoleLoginFailed = DomainEvent<
  'ConsoleLoginFailed',
  {
    emailDigest: string;
    userId: string | null;
    method: SessionMethod;
    reason: 'unknown-user' | 'wrong-password' | 'no-password' | 'disabled' | 'wrong-second-factor' | 'password-login-disabled';
    clientAddress: string | null;
  }
>;
/**
 * A console user looked an item or a user up in Investigate (docs/console.md, "Investigate"): who
 * looked at whom, on the organization's access-audit stream. The subject is named under `viewed`,
 * a field the item histories do not index, so a lookup never shows in the history it looked at.
 */
export type ConsoleInvestigationViewed = DomainEvent<
  'ConsoleInvestigationViewed',
  { userId: string; viewed: { kind: 'item' | 'user'; typeId: string; id: string } }
>;
export type AccessAuditEvent = ConsoleLoginFailed | ConsoleInvestigationViewed;

export const USER_EVENT_TYPES = [
  'UserCreated',
  'UserInvited',
  'UserInvitationAccepted',
  'UserPasswordSet',
  'UserPasswordRehashed',
  'UserRolesChanged',
  'UserDisabled',
  'UserEnabled',
  'ConsoleSessionOpened',
  'ConsoleSessionClosed',
] as const satisfies readonly UserEvent['type'][];
