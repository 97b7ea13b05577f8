import type { ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { describe, expect, it } from 'vitest';
import { DomainError } from '#warden/kernel';
import type { WardenConfig } from '../config/warden-config.js';
import { type ConsoleAuthenticator, type ConsolePrincipal, RecentSignIn, RequirePermissions } from './console-access.js';
import { ConsoleGuard } from './console.guard.js';

class Routes {
  @RequirePermissions('MANAGE_API_KEYS')
  keys(): void {}
  @RequirePermissions('USE_CONSOLE')
  me(): void {}
  @RequirePermissions('MANAGE_API_KEYS')
  @RecentSignIn()
  createKey(): void {}
}

/** The guard's clock: the tests' "now". */
const NOW = Date.parse('2026-12-01T12:00:00.000Z');
/** A window of 15 minutes, as the default. */
const RECENT_SIGN_IN_SECONDS = 15 * 60;

const principal: ConsolePrincipal = {
  userId: 'usr_1',
  orgId: 'acme',
  email: 'ana@acme.example',
  roles: ['ADMIN'],
  permissions: ['USE_CONSOLE'],
  sessionId: 's1',
  signedInAt: new Date(NOW - 60_000).toISOString(),
};

/** The guard with an authenticator that knows one session (or none); a GET request carrying a cookie. */
function check(
  route: keyof Routes,
  authenticated: ConsolePrincipal | null,
  request: object = { cookies: { warden_session: 'token' } },
  onAuthenticate: () => void = () => undefined,
): Promise<boolean> {
  const authenticator: ConsoleAuthenticator = {
    authenticate: async () => {
      onAuthenticate();
      return authenticated;
    },
    verifyCsrf: () => true,
  };
  const config = { publicUrl: 'http://localhost', consoleRecentSignInSeconds: RECENT_SIGN_IN_SECONDS } as WardenConfig;
  const guard = new ConsoleGuard(new Reflector(), authenticator, config, { now: () => new Date(NOW) });
  Object.assign(request, { method: 'GET', headers: {}, ip: '203.0.113.5', ...request });
  const context = {
    getHandler: () => Routes.prototype[route],
    getClass: () => Routes,
    switchToHttp: () => ({ getRequest: () => request }),
  } as unknown as ExecutionContext;
  return guard.canActivate(context);
}

describe('console guard and a session restricted to enrolling a second factor', () => {
  it('lets it reach USE_CONSOLE routes and refuses the rest with a detail that says why', async () => {
    const restricted = { ...principal, secondFactorEnrollmentRequired: true };
    expect(await check('me', restricted)).toBe(true);
    const refusal = await check('keys', restricted).catch((e: unknown) => e);
    expect(refusal).toBeInstanceOf(DomainError);
    expect((refusal as DomainError).status).toBe(403);
    expect((refusal as DomainError).message).toMatch(/organization requires a second factor: enroll one/);
  });

  it('names the missing permission when the roles are the reason', async () => {
    const refusal = await check('keys', principal).catch((e: unknown) => e);
    expect((refusal as DomainError).message).toMatch(/Your roles do not grant MANAGE_API_KEYS/);
  });
});

describe('console guard and the failed-authentication budget', () => {
  /** A request whose app has a failure budget (what installRateLimit attaches), recording its charges. */
  const withBudget = (cookies: Record<string, string>) => {
    const charged: string[] = [];
    const request = { cookies, wardenAuthFailureLimit: { charge: async (address: string) => void charged.push(address) } };
    return { request, charged };
  };

  it('charges the address for a session cookie that opens no session (each would have its own request bucket)', async () => {
    const { request, charged } = withBudget({ warden_session: 'invented' });
    const refusal = await check('me', null, request).catch((e: unknown) => e);
    expect((refusal as DomainError).status).toBe(401);
    expect(charged).toEqual(['203.0.113.5']);
  });

  it('charges nothing for a valid session, nor for a request without a cookie (it spends its address bucket)', async () => {
    const valid = withBudget({ warden_session: 'token' });
    expect(await check('me', principal, valid.request)).toBe(true);
    const none = withBudget({});
    expect(((await check('me', null, none.request).catch((e: unknown) => e)) as DomainError).status).toBe(401);
    expect([...valid.charged, ...none.charged]).toEqual([]);
  });
});

describe('console guard and the requesting site (Fetch Metadata)', () => {
  const fromSite = (site: string | undefined) => ({ cookies: { warden_session: 'token' }, headers: site === undefined ? {} : { 'sec-fetch-site': site } });

  it("refuses a request another site's page or an outside link made, even a GET, before looking at the session", async () => {
    for (const site of ['cross-site', 'same-site', 'none']) {
      let looked = false;
      const refusal = await check('me', principal, fromSite(site), () => (looked = true)).catch((e: unknown) => e);
      expect((refusal as DomainError).status).toBe(403);
      expect((refusal as DomainError).message).toBe(
        `Forbidden: Cross-site request refused (Sec-Fetch-Site: ${site}): console routes answer the console's own pages only`,
      );
      expect(looked).toBe(false);
    }
  });

  it("answers the console's own requests and clients that send no Fetch Metadata", async () => {
    for (const site of ['same-origin', undefined]) expect(await check('me', principal, fromSite(site))).toBe(true);
  });
});

describe('console guard and the changes that need a recent sign-in (RecentSignIn)', () => {
  const keyAdmin: ConsolePrincipal = { ...principal, permissions: ['USE_CONSOLE', 'MANAGE_API_KEYS'] };
  const signedInAgo = (ms: number): ConsolePrincipal => ({ ...keyAdmin, signedInAt: new Date(NOW - ms).toISOString() });
  const refusalOf = (route: keyof Routes, who: ConsolePrincipal): Promise<DomainError> =>
    check(route, who).then(
      () => {
        throw new Error(`${route} was let through`);
      },
      (e: unknown) => e as DomainError,
    );

  it('lets a session opened within the window through, up to its last millisecond', async () => {
    expect(await check('createKey', signedInAgo(0))).toBe(true);
    expect(await check('createKey', signedInAgo(RECENT_SIGN_IN_SECONDS * 1000 - 1))).toBe(true);
  });

  it('refuses an older one with 403 recent-sign-in-required, naming the window; other routes still answer it', async () => {
    const refusal = await refusalOf('createKey', signedInAgo(RECENT_SIGN_IN_SECONDS * 1000));
    expect(refusal).toBeInstanceOf(DomainError);
    expect(refusal.status).toBe(403);
    expect(refusal.type).toBe('/errors/recent-sign-in-required');
    expect(refusal.message).toMatch(/a sign-in of the last 15 minutes/);
    expect(await check('keys', signedInAgo(24 * 3600_000))).toBe(true);
  });

  it('tells a user without the permission about the permission, not the sign-in', async () => {
    const refusal = await refusalOf('createKey', { ...principal, signedInAt: new Date(NOW - 24 * 3600_000).toISOString() });
    expect(refusal.type).toBe('/errors/forbidden');
  });
});
