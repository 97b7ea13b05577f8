import { type CanActivate, type ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyRequest } from 'fastify';
import { type Clock, forbidden, recentSignInRequired, unauthorized } from '#warden/kernel';
import { WARDEN_CONFIG, type WardenConfig } from '../config/warden-config.js';
import { CLOCK } from '../tokens.js';
import { authFailureLimitOf } from './auth-failure-limit.js';
import {
  CONSOLE_ACCESS,
  CONSOLE_AUTHENTICATOR,
  CONSOLE_RECENT_SIGN_IN,
  type ConsoleAccess,
  type ConsoleAuthenticator,
  type ConsolePrincipal,
  CSRF_HEADER,
  sessionCookieName,
} from './console-access.js';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
/**
 * Console routes answer only the console's own pages (Fetch Metadata): the session cookie is
 * SameSite=Lax, so another site's link or script would otherwise have a GET carry it, and some
 * GETs record that they were made (an investigation viewed in the user's name). Browsers name the
 * requesting site in `Sec-Fetch-Site`, and the console's own calls are always `same-origin`;
 * `none` is a link opened from outside any page (a mail client, a chat app), so it is refused too.
 * Requests without the header are let through: clients that are not browsers (whose requests
 * carry no cookie of the user's), and browsers that send no Fetch Metadata (plain-HTTP origins
 * other than localhost, older ones), which the CSRF token and the Origin check still cover for
 * anything that changes state.
 */
function checkFetchSite(request: FastifyRequest): void {
  const raw = request.headers['sec-fetch-site'];
  const site = Array.isArray(raw) ? raw[0] : raw;
  if (site !== undefined && site !== 'same-origin') {
    throw forbidden(`Cross-site request refused (Sec-Fetch-Site: ${site}): console routes answer the console's own pages only`);
  }
}

/** The origin a request was sent to, as its Host header and protocol name it. */
const requestOrigin = (request: FastifyRequest): string => `${request.protocol}://${request.headers.host ?? ''}`;

/** Whether `origin` (a request's Origin header) is this deployment's (WARDEN_PUBLIC_URL) or the one the request was sent to. */
export const isOwnOrigin = (request: FastifyRequest, origin: string, publicUrl: string): boolean => origin === publicUrl || origin === requestOrigin(request);

type ConsoleRequest = FastifyRequest & { consolePrincipal?: ConsolePrincipal; cookies?: Record<string, string | undefined> };

/** The session a request's cookie names, as early-session-check.ts found it before the body was read. */
const SESSION_PRINCIPAL = Symbol('sessionPrincipal');
type WithSessionPrincipal = { [SESSION_PRINCIPAL]?: ConsolePrincipal };

/** Keeps the principal the early session check found, so that the guard does not look the session up again. */
export function rememberSessionPrincipal(request: FastifyRequest, principal: ConsolePrincipal): void {
  (request as WithSessionPrincipal)[SESSION_PRINCIPAL] = principal;
}

/**
 * Guards the console routes (those with @RequirePermissions or @ConsolePublic); others are the
 * API-key guard's. Order: the requesting site (checkFetchSite), same-origin check on mutations,
 * the session, its CSRF token on mutations, then the permissions, checked against the user's roles as of this request,
 * then, on a RecentSignIn route, the session's age.
 */
@Injectable()
export class ConsoleGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    @Inject(CONSOLE_AUTHENTICATOR) private readonly authenticator: ConsoleAuthenticator,
    @Inject(WARDEN_CONFIG) private readonly config: WardenConfig,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const access = this.reflector.getAllAndOverride<ConsoleAccess | undefined>(CONSOLE_ACCESS, [context.getHandler(), context.getClass()]);
    if (access === undefined) return true;
    const request = context.switchToHttp().getRequest<ConsoleRequest>();
    checkFetchSite(request);
    const mutating = !SAFE_METHODS.has(request.method);
    if (mutating) this.checkOrigin(request);
    if (access.kind === 'public') {
      if (access.identifies) request.consolePrincipal = (await this.principalOf(request)) ?? undefined;
      return true;
    }

    const principal = await this.principalOf(request);
    if (principal === null) throw unauthorized('Sign in first: no valid console session');
    if (mutating) {
      const raw = request.headers[CSRF_HEADER];
      const csrf = Array.isArray(raw) ? raw[0] : raw;
      if (!csrf || !this.authenticator.verifyCsrf(principal, csrf)) {
        throw forbidden(`The ${CSRF_HEADER} header is missing or does not match the session (CSRF protection)`);
      }
    }
    const missing = access.permissions.filter((p) => !principal.permissions.includes(p));
    if (missing.length > 0) {
      if (principal.secondFactorEnrollmentRequired) {
        throw forbidden(
          'Your organization requires a second factor: enroll one (POST /api/console/v1/me/second-factor, then confirm it) before using the console',
        );
      }
      throw forbidden(`Your roles do not grant ${missing.join(', ')}`);
    }
    if (this.reflector.getAllAndOverride<boolean | undefined>(CONSOLE_RECENT_SIGN_IN, [context.getHandler(), context.getClass()])) {
      this.checkRecentSignIn(principal);
    }
    request.consolePrincipal = principal;
    return true;
  }

  /** After the permissions, so that a user who may not make the change at all is told that, not to sign in again. */
  private checkRecentSignIn(principal: ConsolePrincipal): void {
    const seconds = this.config.consoleRecentSignInSeconds;
    const age = this.clock.now().getTime() - Date.parse(principal.signedInAt);
    // `>=`: a window of 0 asks for a sign-in again at every such change.
    if (!(age < seconds * 1000)) throw recentSignInRequired(seconds % 60 === 0 ? `${seconds / 60} minutes` : `${seconds} seconds`);
  }

  /** The session the cookie names, or null (no cookie, or one that names no valid session). */
  private async principalOf(request: ConsoleRequest): Promise<ConsolePrincipal | null> {
    const found = (request as WithSessionPrincipal)[SESSION_PRINCIPAL];
    if (found) return found;
    const token = request.cookies?.[sessionCookieName(this.config.publicUrl)];
    const principal = token ? await this.authenticator.authenticate(token) : null;
    // The request rate limit gives every session cookie its own bucket, so a client inventing
    // a cookie per request would never be limited: such cookies spend the address's budget of
    // failed authentications, as invented API keys do.
    if (principal === null && token) await authFailureLimitOf(request)?.charge(request.ip);
    return principal;
  }

  /**
   * A browser names the page a request comes from in `Origin`; a cross-site form or script
   * carries the attacker's. Allowed: the configured public origin, or the origin of the `Host`
   * the request was sent to (a same-origin request reached another way). Clients that are not
   * browsers send no `Origin`; the CSRF token still holds for them.
   */
  private checkOrigin(request: ConsoleRequest): void {
    const origin = request.headers.origin;
    if (origin === undefined || isOwnOrigin(request, origin, this.config.publicUrl)) return;
    throw forbidden(
      `Cross-origin request refused: Origin ${origin} is neither ${this.config.publicUrl} (WARDEN_PUBLIC_URL) nor the origin this request was sent to (${requestOrigin(request)})`,
    );
  }
}
