import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { actorsOf, loggedEvents } from '../support/config-files.js';
import { expectErrorBody } from '../support/error-body.js';
import { waitFor } from '../support/wait-for.js';
import {
  consoleLogin,
  consoleUserCommand,
  createConsoleUser,
  forEachConcurrently,
  freshDataDir,
  orgWithKeyCommand,
  runCli,
  runCliBatch,
  runCliWithInput,
  type RunningWarden,
  startWarden,
  testEnv,
} from '../support/warden-process.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const PASSWORD = 'correct horse battery staple';

type Session = { cookie: string; csrfToken: string };
type Json = Record<string, unknown>;

/** Access management in the console: who may manage keys and users, and that organizations never see each other. */
describe('console access management, end to end', () => {
  const dataDir = freshDataDir();
  // Keys' last use written every second instead of every 10 (docs/configuration.md): a test waits for it.
  const env = testEnv(dataDir, { WARDEN_PUBLIC_URL: 'http://warden.test:8080', WARDEN_API_KEY_USAGE_FLUSH_SECONDS: '1' });
  let warden: RunningWarden;
  const sessions: Record<string, Session> = {};
  const userIds: Record<string, string> = {};

  const ROLE_USERS = {
    ADMIN: 'admin@alpha.example',
    RULES_MANAGER: 'rules@alpha.example',
    ANALYST: 'analyst@alpha.example',
    MODERATOR_MANAGER: 'manager@alpha.example',
    MODERATOR: 'mod@alpha.example',
    CHILD_SAFETY_MODERATOR: 'csm@alpha.example',
    EXTERNAL_MODERATOR: 'external@alpha.example',
  } as const;
  const BETA_ADMIN = 'admin@beta.example';

  const call = (session: Session | null, method: string, path: string, body?: unknown) =>
    fetch(warden.url + path, {
      method,
      headers: {
        ...(session ? { cookie: session.cookie, 'x-csrf-token': session.csrfToken } : {}),
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  const json = async (response: Response, status: number): Promise<Json> => {
    const text = await response.text();
    expect(response.status, text).toBe(status);
    return text === '' ? {} : (JSON.parse(text) as Json);
  };

  beforeAll(async () => {
    // The organizations and users in one CLI process (runCliBatch) beside the server's start-up:
    // neither needs the other (docs/testing.md, "What the suite costs").
    const users: Array<[string, string, string]> = [
      ...Object.entries(ROLE_USERS).map(([role, email]) => ['alpha', email, role] as [string, string, string]),
      ['beta', BETA_ADMIN, 'ADMIN'],
    ];
    const started = startWarden(env);
    try {
      const made = await runCliBatch(env, [
        orgWithKeyCommand('alpha'),
        orgWithKeyCommand('beta'),
        ...users.map(([org, email, role]) => consoleUserCommand(org, email, PASSWORD, [role])),
      ]);
      for (const [i, [, email]] of users.entries()) userIds[email] = made[2 + i]!.at(-1)!;
    } finally {
      warden = await started;
    }
    await forEachConcurrently(users, 4, async ([, email]) => {
      sessions[email] = await consoleLogin(warden.url, email, PASSWORD);
    });
  }, 120_000);
  afterAll(async () => {
    await warden?.stop();
  });

  const as = (email: string) => sessions[email]!;
  /** The signed-in user as `me` gives it. */
  const me = async (session: Session) => (await json(await call(session, 'GET', '/api/console/v1/me'), 200))['user'] as Json;
  const admin = () => as(ROLE_USERS.ADMIN);

  it('names the console at WARDEN_PUBLIC_URL in its start-up line, where invitation and SSO links point', () => {
    expect(warden.started['console']).toBe('http://warden.test:8080/console/');
  });

  describe('permissions per role', () => {
    it('a MODERATOR can neither manage keys nor users (403); an ADMIN can', async () => {
      const mod = as(ROLE_USERS.MODERATOR);
      await expectErrorBody(await call(mod, 'GET', '/api/console/v1/api-keys'), 403, '/errors/forbidden');
      await expectErrorBody(await call(mod, 'POST', '/api/console/v1/api-keys', { name: 'x' }), 403, '/errors/forbidden');
      await expectErrorBody(await call(mod, 'GET', '/api/console/v1/users'), 403, '/errors/forbidden');
      await expectErrorBody(
        await call(mod, 'POST', '/api/console/v1/users/invitations', { email: 'new@alpha.example', roles: ['MODERATOR'] }),
        403,
        '/errors/forbidden',
      );
      await expectErrorBody(
        await call(mod, 'PUT', `/api/console/v1/users/${userIds[ROLE_USERS.MODERATOR]}/roles`, { roles: ['ADMIN'] }),
        403,
        '/errors/forbidden',
      );

      expect((await json(await call(admin(), 'GET', '/api/console/v1/api-keys'), 200))['keys']).toEqual(expect.any(Array));
      expect((await json(await call(admin(), 'GET', '/api/console/v1/users'), 200))['users']).toEqual(expect.any(Array));
    });

    it('EXTERNAL_MODERATOR may view review jobs but never decide', async () => {
      const external = await me(as(ROLE_USERS.EXTERNAL_MODERATOR));
      expect(external['permissions']).toContain('VIEW_MRT');
      expect(external['permissions']).not.toContain('DECIDE_MRT');
    });

    it('only ADMIN, MODERATOR_MANAGER and CHILD_SAFETY_MODERATOR hold VIEW_CHILD_SAFETY_DATA', async () => {
      const holders: string[] = [];
      for (const [role, email] of Object.entries(ROLE_USERS)) {
        if (((await me(as(email)))['permissions'] as string[]).includes('VIEW_CHILD_SAFETY_DATA')) holders.push(role);
      }
      expect(holders.sort()).toEqual(['ADMIN', 'CHILD_SAFETY_MODERATOR', 'MODERATOR_MANAGER']);
    });
  });

  describe('API keys in the console', () => {
    it('creates a key shown once, lists it with its last use, and records the signed-in user as actor', async () => {
      const created = await json(await call(admin(), 'POST', '/api/console/v1/api-keys', { name: 'backend', team: 'trust' }), 201);
      expect(created['key']).toMatch(/^wdn_/);
      const org = await fetch(warden.url + '/api/v1/organization', { headers: { 'x-api-key': created['key'] as string } });
      expect(org.status).toBe(200);

      const listed = await waitFor(
        async () => {
          const keys = (await json(await call(admin(), 'GET', '/api/console/v1/api-keys'), 200))['keys'] as Json[];
          const key = keys.find((k) => k['id'] === created['id']);
          return key && key['lastUsedAt'] !== null ? key : undefined;
        },
        // Uses are written every second here (WARDEN_API_KEY_USAGE_FLUSH_SECONDS, above).
        { what: 'the last use of the new key in the list' },
      );
      expect(listed).toMatchObject({ name: 'backend', team: 'trust', prefix: created['prefix'], status: 'active' });
      expect(JSON.stringify(listed)).not.toContain(created['key'] as string);
      expect(actorsOf(dataDir, 'ApiKeyCreated')).toContain(`user:${userIds[ROLE_USERS.ADMIN]}`);
    }, 60_000);

    it('a key rotated in the console stops working on /api/v1 and the new one works', async () => {
      const old = await json(await call(admin(), 'POST', '/api/console/v1/api-keys', { name: 'to rotate' }), 201);
      const withKey = (key: unknown) => fetch(warden.url + '/api/v1/organization', { headers: { 'x-api-key': key as string } });
      expect((await withKey(old['key'])).status).toBe(200);

      const rotated = await json(await call(admin(), 'POST', `/api/console/v1/api-keys/${old['id']}/rotate`), 200);
      expect(rotated['id']).not.toBe(old['id']);
      expect((await withKey(rotated['key'])).status).toBe(200);
      await waitFor(async () => (await withKey(old['key'])).status === 403, 'the rotated key to be refused');

      const keys = (await json(await call(admin(), 'GET', '/api/console/v1/api-keys'), 200))['keys'] as Json[];
      expect(keys.find((k) => k['id'] === old['id'])).toMatchObject({ status: 'rotated', replacedBy: rotated['id'] });
      expect(actorsOf(dataDir, 'ApiKeyRotated')).toContain(`user:${userIds[ROLE_USERS.ADMIN]}`);
      await expectErrorBody(await call(admin(), 'POST', `/api/console/v1/api-keys/${old['id']}/rotate`), 409, '/errors/conflict');
    });

    it('revokes a key', async () => {
      const key = await json(await call(admin(), 'POST', '/api/console/v1/api-keys', {}), 201);
      await json(await call(admin(), 'POST', `/api/console/v1/api-keys/${key['id']}/revoke`), 204);
      await waitFor(
        async () => (await fetch(warden.url + '/api/v1/organization', { headers: { 'x-api-key': key['key'] as string } })).status === 403,
        'the revoked key to be refused',
      );
      expect(actorsOf(dataDir, 'ApiKeyRevoked')).toContain(`user:${userIds[ROLE_USERS.ADMIN]}`);
    });

    it('refuses a bad body with a pointer, and a mutation without the CSRF token', async () => {
      await expectErrorBody(await call(admin(), 'POST', '/api/console/v1/api-keys', { name: 'x'.repeat(101) }), 400, '/errors/invalid-user-input', '/name');
      const noCsrf = await fetch(warden.url + '/api/console/v1/api-keys', {
        method: 'POST',
        headers: { cookie: admin().cookie, 'content-type': 'application/json' },
        body: '{}',
      });
      await expectErrorBody(noCsrf, 403, '/errors/forbidden');
    });
  });

  describe('organization isolation', () => {
    it("a user of alpha never sees or touches beta's keys and users, through any console route", async () => {
      const beta = as(BETA_ADMIN);
      const betaKey = await json(await call(beta, 'POST', '/api/console/v1/api-keys', { name: 'beta secret' }), 201);
      const betaUserId = userIds[BETA_ADMIN]!;
      const betaMarkers = [betaKey['id'] as string, betaKey['prefix'] as string, betaUserId, BETA_ADMIN, 'beta secret', '"beta"'];

      // Every GET console route of the OpenAPI document, its path parameters filled with beta's ids.
      type Parameter = { name: string; in: string; required?: boolean; schema?: { enum?: string[] } };
      const document = JSON.parse(readFileSync(join(ROOT, 'docs/openapi.json'), 'utf8')) as {
        paths: Record<string, { get?: { parameters?: Parameter[] } }>;
      };
      const betaValue = (name: string) =>
        name.toLowerCase().includes('key') ? (betaKey['id'] as string) : name.toLowerCase().includes('user') ? betaUserId : 'beta';
      // Required query parameters and ids too (e.g. Investigate's lookup: kind, id and typeId), each of an enum's values.
      const queriesOf = (parameters: Parameter[] = []): string[] => {
        // Ids that are optional for some values of another parameter (typeId for Investigate's item lookup) are named too.
        const required = parameters.filter((p) => p.in === 'query' && (p.required || /id$/i.test(p.name)));
        if (required.length === 0) return [''];
        const choices = required.map((p) => (p.schema?.enum ?? [betaValue(p.name)]).map((v) => `${p.name}=${encodeURIComponent(v)}`));
        return choices.reduce<string[]>((all, values) => all.flatMap((a) => values.map((v) => (a ? `${a}&${v}` : v))), ['']).map((q) => `?${q}`);
      };
      const routes = Object.entries(document.paths)
        .filter(([path, operations]) => path.startsWith('/api/console/') && operations.get !== undefined)
        .flatMap(([path, operations]) =>
          queriesOf(operations.get!.parameters).map((query) => path.replace(/\{(\w+)\}/g, (_, name: string) => betaValue(name)) + query),
        );
      expect(routes).toEqual(expect.arrayContaining(['/api/console/v1/api-keys', '/api/console/v1/users', `/api/console/v1/users/${betaUserId}`]));
      for (const path of routes) {
        const response = await call(admin(), 'GET', path);
        const text = await response.text();
        expect([200, 404], `${path}: ${text}`).toContain(response.status);
        // A 404 may name the id it was asked for; anything else of beta's is a leak.
        for (const marker of betaMarkers.filter((m) => !path.includes(m))) expect(text, `${path} leaks ${marker}`).not.toContain(marker);
      }

      const mutations: Array<[string, string, unknown?]> = [
        ['POST', `/api/console/v1/api-keys/${betaKey['id']}/rotate`],
        ['POST', `/api/console/v1/api-keys/${betaKey['id']}/revoke`],
        ['POST', `/api/console/v1/users/${betaUserId}/disable`],
        ['PUT', `/api/console/v1/users/${betaUserId}/roles`, { roles: ['MODERATOR'] }],
      ];
      for (const [method, path, body] of mutations) {
        await expectErrorBody(await call(admin(), method, path, body), 404, '/errors/not-found');
      }
      // Nothing happened to beta's key or user.
      const betaKeys = (await json(await call(beta, 'GET', '/api/console/v1/api-keys'), 200))['keys'] as Json[];
      expect(betaKeys.find((k) => k['id'] === betaKey['id'])).toMatchObject({ status: 'active' });
      expect(await me(beta)).toMatchObject({ roles: ['ADMIN'] });
    });
  });

  describe('users in the console', () => {
    it('invites a user with a one-time link that sets the password once, then lists it active', async () => {
      const invited = await json(await call(admin(), 'POST', '/api/console/v1/users/invitations', { email: 'Newbie@Alpha.example', roles: ['ANALYST'] }), 201);
      const url = invited['invitationUrl'] as string;
      expect(url).toMatch(/^http:\/\/warden\.test:8080\/console\/invite#alpha\.usr_[\w-]+\.[\w-]{43}$/);
      const token = url.slice(url.indexOf('#') + 1);
      expect(invited['user']).toMatchObject({ email: 'newbie@alpha.example', roles: ['ANALYST'], state: 'invited' });

      await json(await call(null, 'POST', '/api/console/v1/invitations/accept', { token, password: PASSWORD }), 200);
      await expectErrorBody(await call(null, 'POST', '/api/console/v1/invitations/accept', { token, password: PASSWORD }), 401, '/errors/unauthorized');
      const session = await consoleLogin(warden.url, 'newbie@alpha.example', PASSWORD);
      expect(await me(session)).toMatchObject({ email: 'newbie@alpha.example', roles: ['ANALYST'] });

      const users = (await json(await call(admin(), 'GET', '/api/console/v1/users'), 200))['users'] as Json[];
      expect(users.find((u) => u['email'] === 'newbie@alpha.example')).toMatchObject({ state: 'active', roles: ['ANALYST'] });
      expect(JSON.stringify(users)).not.toContain(BETA_ADMIN);
      expect(actorsOf(dataDir, 'UserInvited')).toContain(`user:${userIds[ROLE_USERS.ADMIN]}`);
    });

    it('refuses an invitation to an address holding a control character, a space or a special character, with a 400 on /email', async () => {
      for (const email of [
        '"\u0000"@x.example',
        'a\u0000b@x.example',
        'a\u007fb@x.example',
        'a\u202eb@x.example',
        '"a b"@x.example',
        'a,b@x.example',
        'a<b>@x.example',
      ]) {
        const error = await expectErrorBody(
          await call(admin(), 'POST', '/api/console/v1/users/invitations', { email, roles: ['MODERATOR'] }),
          400,
          '/errors/invalid-user-input',
          '/email',
        );
        expect(error['detail'], JSON.stringify(email)).toMatch(/^Not an email address/);
      }
    });

    it('refuses weak new passwords at acceptance with a 400 on /password saying why; the invitation stays usable (issue 30, item 8)', async () => {
      const invited = await json(await call(admin(), 'POST', '/api/console/v1/users/invitations', { email: 'weak@alpha.example', roles: ['MODERATOR'] }), 201);
      const token = (invited['invitationUrl'] as string).split('#')[1]!;
      const refusals: Array<[string, RegExp]> = [
        ['\0'.repeat(12), /control characters/],
        [' '.repeat(12), /repeated or sequential/],
        ['aaaaaaaaaaaa', /repeated or sequential/],
        ['qwerty123456', /common or breached/],
        ['Weak@Alpha.example', /email address/],
      ];
      for (const [password, why] of refusals) {
        const error = await expectErrorBody(
          await call(null, 'POST', '/api/console/v1/invitations/accept', { token, password }),
          400,
          '/errors/invalid-user-input',
          '/password',
        );
        expect(error['detail'], JSON.stringify(password)).toMatch(why);
      }
      // None of them used the invitation up.
      await json(await call(null, 'POST', '/api/console/v1/invitations/accept', { token, password: PASSWORD }), 200);
    });

    it('lists a user made by `user create` without a password apart from those who can sign in (issue 30, item 18)', async () => {
      const created = await runCli(['user', 'create', '--org', 'alpha', '--email', 'nopass@alpha.example', '--role', 'MODERATOR'], env);
      expect(created.code, created.stderr).toBe(0);
      const users = (await json(await call(admin(), 'GET', '/api/console/v1/users'), 200))['users'] as Json[];
      expect(users.find((u) => u['email'] === 'nopass@alpha.example')).toMatchObject({ state: 'active', hasPassword: false });
      expect(users.find((u) => u['email'] === ROLE_USERS.ANALYST)).toMatchObject({ state: 'active', hasPassword: true });
      const listed = await runCli(['user', 'list', '--org', 'alpha'], env);
      expect(listed.stdout).toMatch(/nopass@alpha\.example\s+MODERATOR\s+active \(no password\)\n/);
      expect(listed.stdout).toMatch(/analyst@alpha\.example\s+ANALYST\s+active\n/);

      const set = await runCliWithInput(['user', 'set-password', '--org', 'alpha', '--email', 'nopass@alpha.example'], env, `${PASSWORD}\n`);
      expect(set.code, set.stderr).toBe(0);
      const after = (await json(await call(admin(), 'GET', '/api/console/v1/users'), 200))['users'] as Json[];
      expect(after.find((u) => u['email'] === 'nopass@alpha.example')).toMatchObject({ state: 'active', hasPassword: true });
    }, 90_000);

    it("answers an invitation of another organization's address like any other, and settles the conflict at acceptance (issue 30, item 9)", async () => {
      await createConsoleUser(dataDir, 'beta', 'member@beta.example', PASSWORD, ['MODERATOR'], env);
      const invite = async (email: string) => {
        const response = await call(admin(), 'POST', '/api/console/v1/users/invitations', { email, roles: ['MODERATOR'] });
        const body = await json(response, 201);
        return { body, token: (body['invitationUrl'] as string).split('#')[1]!, user: body['user'] as Json };
      };
      const shape = (body: Json) => ({ ...body, user: { ...(body['user'] as Json), id: 'ID', email: 'EMAIL' }, invitationUrl: 'URL', expiresAt: 'AT' });
      const fresh = await invite('fresh@elsewhere.example');
      const taken = await invite('Member@Beta.example');
      // The same answer whether or not the address has an account in another organization.
      expect(shape(taken.body)).toEqual(shape(fresh.body));
      expect(taken.user).toMatchObject({ email: 'member@beta.example', state: 'invited', hasPassword: false });
      // Nor does the organization's audit trail tell: the address registry is the deployment's.
      const registry = loggedEvents(dataDir).filter((e) => e.type.startsWith('UserEmail'));
      expect(registry.map((e) => e.type)).toEqual(expect.arrayContaining(['UserEmailReserved', 'UserEmailInviteeRecorded']));
      expect(new Set(registry.map((e) => e.metadata['orgId']))).toEqual(new Set(['_deployment']));
      const exported = await call(admin(), 'GET', '/api/console/v1/audit/export');
      expect(exported.status).toBe(200);
      expect(await exported.text()).not.toContain('UserEmail');
      // Invited again, each is renewed alike: the same user, a new link.
      for (const first of [fresh, taken]) {
        const again = await invite(first.user['email'] as string);
        expect(again.user['id']).toBe(first.user['id']);
        expect(again.token).not.toBe(first.token);
        await expectErrorBody(
          await call(null, 'POST', '/api/console/v1/invitations/accept', { token: first.token, password: PASSWORD }),
          401,
          '/errors/unauthorized',
        );
        first.token = again.token;
      }

      // The person accepting is told; the account in beta is untouched and still signs in.
      const refused = await expectErrorBody(
        await call(null, 'POST', '/api/console/v1/invitations/accept', { token: taken.token, password: 'a new passphrase for alpha' }),
        409,
        '/errors/conflict',
      );
      expect(refused['detail']).toMatch(/already has a Warden account in another organization/);
      expect(await me(await consoleLogin(warden.url, 'member@beta.example', PASSWORD))).toMatchObject({ orgId: 'beta' });
      await expect(consoleLogin(warden.url, 'member@beta.example', 'a new passphrase for alpha')).rejects.toThrow(/401/);
      await json(await call(null, 'POST', '/api/console/v1/invitations/accept', { token: fresh.token, password: PASSWORD }), 200);

      // Two invitations never accepted: the first to accept takes the address, the other is then refused.
      const betaInvite = await json(
        await call(as(BETA_ADMIN), 'POST', '/api/console/v1/users/invitations', { email: 'both@shared.example', roles: ['ANALYST'] }),
        201,
      );
      const alphaInvite = await invite('both@shared.example');
      await json(await call(null, 'POST', '/api/console/v1/invitations/accept', { token: alphaInvite.token, password: PASSWORD }), 200);
      expect(await me(await consoleLogin(warden.url, 'both@shared.example', PASSWORD))).toMatchObject({ orgId: 'alpha', roles: ['MODERATOR'] });
      const betaToken = (betaInvite['invitationUrl'] as string).split('#')[1]!;
      await expectErrorBody(
        await call(null, 'POST', '/api/console/v1/invitations/accept', { token: betaToken, password: 'a passphrase for beta' }),
        409,
        '/errors/conflict',
      );
    }, 120_000);

    it('changes roles (effective on the next request) and disables a user (its session stops working)', async () => {
      const target = ROLE_USERS.RULES_MANAGER;
      const changed = await json(await call(admin(), 'PUT', `/api/console/v1/users/${userIds[target]}/roles`, { roles: ['ANALYST', 'MODERATOR'] }), 200);
      expect(changed['roles']).toEqual(['ANALYST', 'MODERATOR']);
      expect((await me(as(target)))['roles']).toEqual(['ANALYST', 'MODERATOR']);
      expect(actorsOf(dataDir, 'UserRolesChanged')).toContain(`user:${userIds[ROLE_USERS.ADMIN]}`);
      await expectErrorBody(
        await call(admin(), 'PUT', `/api/console/v1/users/${userIds[target]}/roles`, { roles: ['OWNER'] }),
        400,
        '/errors/invalid-user-input',
        '/roles',
      );

      await json(await call(admin(), 'POST', `/api/console/v1/users/${userIds[target]}/disable`), 200);
      await expectErrorBody(await call(as(target), 'GET', '/api/console/v1/me'), 401, '/errors/unauthorized');
    });

    it("refuses (409) the last active admin's removal of their own ADMIN role, and disabling themselves", async () => {
      const self = userIds[ROLE_USERS.ADMIN]!;
      await expectErrorBody(await call(admin(), 'PUT', `/api/console/v1/users/${self}/roles`, { roles: ['ANALYST'] }), 409, '/errors/conflict');
      await expectErrorBody(await call(admin(), 'POST', `/api/console/v1/users/${self}/disable`), 409, '/errors/conflict');
      expect((await me(admin()))['roles']).toEqual(['ADMIN']);

      // With another active admin, stepping down is fine.
      const manager = userIds[ROLE_USERS.MODERATOR_MANAGER]!;
      await json(await call(admin(), 'PUT', `/api/console/v1/users/${manager}/roles`, { roles: ['ADMIN', 'MODERATOR_MANAGER'] }), 200);
      expect(await json(await call(admin(), 'PUT', `/api/console/v1/users/${self}/roles`, { roles: ['ANALYST'] }), 200)).toMatchObject({ roles: ['ANALYST'] });
      await expectErrorBody(await call(admin(), 'GET', '/api/console/v1/users'), 403, '/errors/forbidden');
    });
  });
});
