import { applyDecorators, createParamDecorator, type ExecutionContext, SetMetadata } from '@nestjs/common';
import type { Permission, Role } from '#warden/identity/contracts';
import { PublicBodyLimit, SessionBeforeBody } from '../http/public-body-limit.js';

/** A person signed in to the console: who, in which organization, allowed what, by which session. */
export interface ConsolePrincipal {
  readonly userId: string;
  readonly orgId: string;
  readonly email: string;
  readonly roles: readonly Role[];
  readonly permissions: readonly Permission[];
  /** The session's id (not its cookie token): what logout and the audit name. */
  readonly sessionId: string;
  /** When the session was opened: the time of the sign-in (password and second factor, or SSO) it stands for. */
  readonly signedInAt: string;
  /**
   * The organization requires a second factor and this user has none yet: `permissions` are cut
   * down to USE_CONSOLE (their account, the second-factor routes, sign-out) until one is confirmed.
   */
  readonly secondFactorEnrollmentRequired?: boolean;
}

/** Implemented by the identity module; the console guard only knows this contract. */
export interface ConsoleAuthenticator {
  /**
   * The principal of the session a cookie token names, or null when there is none, it expired or
   * was revoked, or its user is disabled. Roles and state are the user's as of this request.
   */
  authenticate(sessionToken: string): Promise<ConsolePrincipal | null>;
  /** Whether `csrfToken` (the request's CSRF header) belongs to the principal's session. */
  verifyCsrf(principal: ConsolePrincipal, csrfToken: string): boolean;
}

export const CONSOLE_AUTHENTICATOR = Symbol('ConsoleAuthenticator');

/** The session cookie's name on a deployment without TLS (an `http://` WARDEN_PUBLIC_URL). */
export const SESSION_COOKIE = 'warden_session';
/**
 * The session cookie's name on a deployment with TLS: the `__Host-` prefix makes browsers accept it
 * only from this host, `Secure`, with `Path=/` and no `Domain`, so a page on a sibling subdomain
 * (or a network attacker speaking plain HTTP to this host) cannot set a session of its choosing
 * in the console's browser (docs/console-access.md, "Sessions"). Browsers refuse the prefix
 * without TLS, hence the plain name there.
 */
export const HOST_SESSION_COOKIE = `__Host-${SESSION_COOKIE}`;

/** The session cookie's name for a deployment at `publicUrl` (WARDEN_PUBLIC_URL). Only this name is read. */
export const sessionCookieName = (publicUrl: string): string => (publicUrl.startsWith('http://') ? SESSION_COOKIE : HOST_SESSION_COOKIE);
/** The header a mutating console request carries its session's CSRF token in. */
export const CSRF_HEADER = 'x-csrf-token';
/** Sessions last 30 days (docs/console-access.md, "Sessions"). */
export const SESSION_TTL_MS = 30 * 24 * 60 * 60 * 1000;

/**
 * How a console route is reached: the permissions it needs, or none for the sign-in routes. A
 * public route that `identifies` is told who is signed in, if anyone (`OptionalUser`).
 */
export type ConsoleAccess =
  { readonly kind: 'session'; readonly permissions: readonly Permission[] } | { readonly kind: 'public'; readonly identifies?: boolean };

export const CONSOLE_ACCESS = 'warden:console-access';
/** Set by RecentSignIn: the route also needs a sign-in within WARDEN_CONSOLE_RECENT_SIGN_IN_SECONDS. */
export const CONSOLE_RECENT_SIGN_IN = 'warden:console-recent-sign-in';

/**
 * The one access decorator of a console route: the caller must be signed in (session cookie) and
 * hold every permission named. Mutating methods also need the session's CSRF token and a
 * same-origin `Origin`. The OpenAPI side (tag, security scheme, errors) is ApiConsoleRoute's.
 */
export const RequirePermissions = (...permissions: [Permission, ...Permission[]]) =>
  applyDecorators(SetMetadata(CONSOLE_ACCESS, { kind: 'session', permissions } satisfies ConsoleAccess), SessionBeforeBody());

/**
 * Beside RequirePermissions, on the changes that could take an organization over if someone else
 * used a signed-in browser, or a session token that leaked (API keys, users and roles, second
 * factors, SSO, bulk actions): the session must also have been opened within
 * WARDEN_CONSOLE_RECENT_SIGN_IN_SECONDS, else 403 `/errors/recent-sign-in-required`
 * (docs/console-access.md, "Recent sign-in"; test/console-route-permissions.spec.ts lists them).
 */
export const RecentSignIn = () => SetMetadata(CONSOLE_RECENT_SIGN_IN, true);

/**
 * A console route reached without a session: signing in, accepting an invitation. Its body is
 * read under the public limit (PublicBodyLimit). Mutating methods still need a same-origin
 * `Origin` (login CSRF). Every other console route names a
 * permission (test/console-route-permissions.spec.ts walks the route table).
 */
export const ConsolePublic = (options: { identifies?: boolean } = {}) =>
  applyDecorators(SetMetadata(CONSOLE_ACCESS, { kind: 'public', ...options } satisfies ConsoleAccess), PublicBodyLimit());

/** On a public route that identifies: the signed-in user, or null when the request has no valid session. */
export const OptionalUser = createParamDecorator(
  (_: unknown, ctx: ExecutionContext): ConsolePrincipal | null =>
    ctx.switchToHttp().getRequest<{ consolePrincipal?: ConsolePrincipal }>().consolePrincipal ?? null,
);

export const CurrentUser = createParamDecorator((_: unknown, ctx: ExecutionContext): ConsolePrincipal => {
  const request = ctx.switchToHttp().getRequest<{ consolePrincipal?: ConsolePrincipal }>();
  if (!request.consolePrincipal) throw new Error('No console principal on a console route');
  return request.consolePrincipal;
});
