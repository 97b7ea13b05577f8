import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loggedEvents } from '../support/config-files.js';
import { expectErrorBody } from '../support/error-body.js';
import {
  consoleLogin,
  consoleUserCommand,
  freshDataDir,
  orgWithKeyCommand,
  runCliBatch,
  type RunningWarden,
  startWarden,
  testEnv,
} from '../support/warden-process.js';

const PASSWORD = 'correct horse battery staple';

/**
 * The changes that need a recent sign-in (docs/console-access.md, "Recent sign-in"), on a server
 * whose window is 0 seconds: every session is too old for them at once, without a test waiting for
 * a clock. Which routes are marked is pinned by test/console-route-permissions.spec.ts; the
 * window's edges by the guard's spec (libs/platform/src/auth/console.guard.spec.ts).
 */
describe('changes that could take an organization over need a recent sign-in (e2e)', () => {
  const dataDir = freshDataDir();
  const env = testEnv(dataDir, { WARDEN_CONSOLE_RECENT_SIGN_IN_SECONDS: '0' });
  let warden: RunningWarden;
  let session: { cookie: string; csrfToken: string };

  beforeAll(async () => {
    const started = startWarden(env);
    try {
      await runCliBatch(env, [orgWithKeyCommand('acme'), consoleUserCommand('acme', 'ada@acme.example', PASSWORD, ['ADMIN'])]);
    } finally {
      warden = await started;
    }
    session = await consoleLogin(warden.url, 'ada@acme.example', PASSWORD);
  }, 90_000);
  afterAll(async () => {
    await warden?.stop();
  });

  const call = (method: string, path: string, body?: unknown) =>
    fetch(warden.url + path, {
      method,
      headers: { cookie: session.cookie, 'x-csrf-token': session.csrfToken, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });

  it('refuses each of them with 403 recent-sign-in-required, before reading the body, and records nothing', async () => {
    const before = loggedEvents(dataDir).length;
    const refused: Array<[string, string, unknown]> = [
      ['POST', '/api/console/v1/api-keys', { name: 'backdoor' }],
      ['POST', '/api/console/v1/api-keys/any-key/rotate', {}],
      ['POST', '/api/console/v1/api-keys/any-key/revoke', {}],
      ['POST', '/api/console/v1/users/invitations', { email: 'mallory@evil.example', roles: ['ADMIN'] }],
      ['PUT', '/api/console/v1/users/any-user/roles', { roles: ['ADMIN'] }],
      ['POST', '/api/console/v1/users/any-user/disable', {}],
      ['POST', '/api/console/v1/me/second-factor', {}],
      ['DELETE', '/api/console/v1/me/second-factor', {}],
      ['PUT', '/api/console/v1/sso', { saml_enabled: true }],
      ['POST', '/api/console/v1/bulk-actions', {}],
    ];
    for (const [method, path, body] of refused) {
      const body403 = await expectErrorBody(await call(method, path, body), 403, '/errors/recent-sign-in-required');
      expect(JSON.stringify(body403), `${method} ${path}`).toMatch(/sign in again/);
    }
    expect(
      loggedEvents(dataDir)
        .slice(before)
        .map((e) => e.type),
    ).toEqual([]);
  });

  it('still answers the same session everywhere else: reads, and changes of another kind', async () => {
    expect((await call('GET', '/api/console/v1/api-keys')).status).toBe(200);
    expect((await call('GET', '/api/console/v1/me')).status).toBe(200);
    const queue = await call('POST', '/api/console/v1/queues', { id: 'escalations', name: 'Escalations' });
    expect(queue.status, await queue.clone().text()).toBeLessThan(300);
  });
});
