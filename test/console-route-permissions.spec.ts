import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants.js';
import { ModulesContainer } from '@nestjs/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PERMISSIONS, permissionsOf } from '#warden/identity/contracts';
import { CONSOLE_ACCESS, CONSOLE_RECENT_SIGN_IN, type ConsoleAccess, createRootLogger, IS_PUBLIC, loadConfig } from '#warden/platform';
import { createHttpApp } from '#warden/platform/http';
import { openStorage, type Storage } from '#warden/storage';
import { AppModule } from '../apps/server/src/app.module.js';
import { HttpSurfaceModule } from '../apps/server/src/http-surface.module.js';
import { WARDEN_VERSION } from '../apps/server/src/version.js';

/** Console routes reached without a session: signing in and what leads to it. Nothing else. */
const PUBLIC_CONSOLE_ROUTES = new Set(['GET /api/console/v1/session', 'POST /api/console/v1/session', 'POST /api/console/v1/invitations/accept']);

interface RouteAccess {
  readonly route: string;
  readonly console: ConsoleAccess | undefined;
  readonly public: boolean;
  readonly recentSignIn: boolean;
}

/**
 * The changes that could take an organization over from a borrowed browser or a leaked session
 * token: they need a recent sign-in (docs/console-access.md, "Recent sign-in"). A route added to
 * these families must be added here, and so marked.
 */
const RECENT_SIGN_IN_ROUTES = [
  'POST /api/console/v1/api-keys',
  'POST /api/console/v1/api-keys/:keyId/rotate',
  'POST /api/console/v1/api-keys/:keyId/revoke',
  'POST /api/console/v1/users/invitations',
  'PUT /api/console/v1/users/:userId/roles',
  'POST /api/console/v1/users/:userId/disable',
  'POST /api/console/v1/me/second-factor',
  'DELETE /api/console/v1/me/second-factor',
  'PUT /api/console/v1/sso',
  'POST /api/console/v1/bulk-actions',
];

const HTTP_METHODS = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD', 'SEARCH', 'PROPFIND', 'ALL'];
const joinPath = (...parts: Array<string | string[] | undefined>) =>
  '/' +
  parts
    .flatMap((p) => [p ?? ''].flat())
    .map((p) => p.replace(/^\/+|\/+$/g, ''))
    .filter((p) => p !== '')
    .join('/');

/** Every route of every controller the api role serves, with the access metadata the guards read. */
function routeTable(modules: ModulesContainer): RouteAccess[] {
  const routes: RouteAccess[] = [];
  for (const module of modules.values()) {
    for (const wrapper of module.controllers.values()) {
      const controller = wrapper.metatype as (new (...args: never[]) => object) | null;
      if (!controller) continue;
      const base = Reflect.getMetadata(PATH_METADATA, controller) as string | string[] | undefined;
      for (const name of Object.getOwnPropertyNames(controller.prototype)) {
        const handler = (controller.prototype as Record<string, unknown>)[name];
        if (name === 'constructor' || typeof handler !== 'function') continue;
        const path = Reflect.getMetadata(PATH_METADATA, handler) as string | string[] | undefined;
        if (path === undefined) continue;
        const method = HTTP_METHODS[Reflect.getMetadata(METHOD_METADATA, handler) as number] ?? '?';
        const read = (key: string) => Reflect.getMetadata(key, handler) ?? Reflect.getMetadata(key, controller);
        routes.push({
          route: `${method} ${joinPath(base, path)}`,
          console: read(CONSOLE_ACCESS),
          public: read(IS_PUBLIC) === true,
          recentSignIn: read(CONSOLE_RECENT_SIGN_IN) === true,
        });
      }
    }
  }
  return routes;
}

describe('console route permissions (the route table)', () => {
  let dir: string;
  let storage: Storage;
  let routes: RouteAccess[];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'warden-routes-'));
    const config = loadConfig({ WARDEN_DATA_DIR: dir, WARDEN_LOG_LEVEL: 'error' });
    storage = await openStorage(config);
    const app = await createHttpApp(
      AppModule.forRoot(config, storage, { background: false, http: HttpSurfaceModule.forRoles({ http: true, background: false }) }),
      config,
      createRootLogger('error'),
      WARDEN_VERSION,
    );
    routes = routeTable(app.get(ModulesContainer));
    await app.close();
  });
  afterAll(async () => {
    await storage.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('finds the routes (the walk itself works)', () => {
    expect(routes.some((r) => r.route === 'POST /api/v1/items/async')).toBe(true);
  });

  it('gives every console route a permission, or is one of the sign-in routes', () => {
    const consoleRoutes = routes.filter((r) => r.route.split(' ')[1]!.startsWith('/api/console/'));
    expect(consoleRoutes.map((r) => r.route)).toContain('GET /api/console/v1/me');
    for (const { route, console } of consoleRoutes) {
      expect(console, `${route} has no @RequirePermissions`).toBeDefined();
      if (console!.kind === 'public') expect(PUBLIC_CONSOLE_ROUTES.has(route), `${route} is reached without a session`).toBe(true);
      else {
        expect(console!.permissions.length, route).toBeGreaterThan(0);
        for (const p of console!.permissions) expect(PERMISSIONS, route).toContain(p);
      }
    }
  });

  it('lets AUDITOR reach reads only: no route that changes something, none of users, keys, SSO or deliveries', () => {
    const auditor = permissionsOf(['AUDITOR']);
    const reached = routes.filter((r) => r.console?.kind === 'session' && r.console.permissions.every((p) => auditor.includes(p))).map((r) => r.route);
    expect(reached).toEqual(
      expect.arrayContaining([
        'GET /api/console/v1/audit/export',
        'GET /api/console/v1/items/:typeId/:id/history',
        'GET /api/console/v1/users/:typeId/:id/history',
      ]),
    );
    // Sign-out and the second factor are the user's own account (USE_CONSOLE), which every role has.
    const own = new Set(routes.filter((r) => r.console?.kind === 'session' && r.console.permissions.every((p) => p === 'USE_CONSOLE')).map((r) => r.route));
    for (const route of reached.filter((r) => !own.has(r))) expect(route.split(' ')[0], route).toBe('GET');
    for (const route of reached) expect(route, route).not.toMatch(/api-keys|sso|deliveries|\/users$|invitations/);
  });

  it('asks for a recent sign-in on exactly the routes that could take an organization over', () => {
    expect(
      routes
        .filter((r) => r.recentSignIn)
        .map((r) => r.route)
        .sort(),
    ).toEqual([...RECENT_SIGN_IN_ROUTES].sort());
    // And the OpenAPI document says so, on those routes only.
    const document = JSON.parse(readFileSync(join(import.meta.dirname, '../docs/openapi.json'), 'utf8')) as {
      paths: { [path: string]: { [method: string]: { responses?: { [status: string]: { description?: string } } } } };
    };
    const documented = Object.entries(document.paths).flatMap(([path, operations]) =>
      Object.entries(operations)
        .filter(([, op]) => op.responses?.['403']?.description?.includes('/errors/recent-sign-in-required'))
        .map(([method]) => `${method.toUpperCase()} ${path.replace(/\{(\w+)\}/g, ':$1')}`),
    );
    expect(documented.sort()).toEqual([...RECENT_SIGN_IN_ROUTES].sort());
  });

  it('keeps console access off every route outside /api/console (those are API-key or public routes)', () => {
    for (const { route, console } of routes.filter((r) => !r.route.split(' ')[1]!.startsWith('/api/console/'))) {
      expect(console, route).toBeUndefined();
    }
  });

  it('marks the SAML routes public: the IdP and a signed-out browser reach them', () => {
    for (const { route, public: isPublic } of routes.filter((r) => r.route.split(' ')[1]!.startsWith('/saml/'))) {
      expect(isPublic, route).toBe(true);
    }
  });
});
