import type { ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { describe, expect, it } from 'vitest';
import { DomainError } from '#warden/kernel';
import type { WardenConfig } from '../config/warden-config.js';
import { type ConsoleAuthenticator, type ConsolePrincipal, RequirePermissions } from './console-access.js';
import { ConsoleGuard } from './console.guard.js';

class Routes {
  @RequirePermissions('MANAGE_API_KEYS')
  keys(): void {}
  @RequirePermissions('USE_CONSOLE')
  me(): void {}
}

const principal: ConsolePrincipal = {
  userId: 'usr_1',
  orgId: 'acme',
  email: 'ana@acme.example',
  roles: ['ADMIN'],
  permissions: ['USE_CONSOLE'],
  sessionId: 's1',
};

/** The guard with an authenticator that knows one session; a GET request carrying it. */
function check(route: keyof Routes, authenticated: ConsolePrincipal): Promise<boolean> {
  const authenticator: ConsoleAuthenticator = { authenticate: async () => authenticated, verifyCsrf: () => true };
  const guard = new ConsoleGuard(new Reflector(), authenticator, { publicUrl: 'http://localhost' } as WardenConfig);
  const request = { method: 'GET', headers: {}, cookies: { warden_session: 'token' } };
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
