import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Secret, TOTP, URI } from 'otpauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loggedEvents } from '../support/config-files.js';
import { waitFor } from '../support/wait-for.js';
import { consoleUserCommand, freshDataDir, runCliBatch, type RunningWarden, startWarden, testEnv } from '../support/warden-process.js';

/** Issue 12, item 6: an optional TOTP second factor per user, with recovery codes, enforceable per organization. */

interface Session {
  readonly cookie: string;
  readonly csrf: string;
}

interface Me {
  readonly user: { readonly permissions: string[] };
  readonly secondFactorEnrollmentRequired: boolean;
}

interface LoginBody {
  email: string;
  password: string;
  totp?: string;
  recoveryCode?: string;
}

async function login(url: string, body: LoginBody): Promise<{ status: number; session: Session | null; json: Record<string, unknown> }> {
  const res = await fetch(`${url}/api/console/v1/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const json = (await res.json()) as Record<string, unknown>;
  const setCookie = res.headers.getSetCookie().find((c) => c.startsWith('warden_session='));
  const session = setCookie ? { cookie: setCookie.split(';')[0]!, csrf: String(json['csrfToken']) } : null;
  return { status: res.status, session, json };
}

function consoleCall(url: string, session: Session, method: string, path: string, body?: unknown) {
  return fetch(`${url}/api/console/v1${path}`, {
    method,
    headers: {
      cookie: session.cookie,
      'x-csrf-token': session.csrf,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

const totpOf = (secret: string) => new TOTP({ algorithm: 'SHA1', digits: 6, period: 30, secret: Secret.fromBase32(secret) });
/** The code of the step `offset` steps from the current one. */
const codeAt = (secret: string, offset = 0) => totpOf(secret).generate({ timestamp: Date.now() + offset * 30_000 });

/** Errors without their request ids, to compare two refusals. */
const withoutRequestIds = (json: Record<string, unknown>) => (json['errors'] as Array<Record<string, unknown>>).map(({ requestId: _id, ...rest }) => rest);

async function enroll(url: string, session: Session): Promise<{ secret: string; recoveryCodes: string[] }> {
  const started = await consoleCall(url, session, 'POST', '/me/second-factor');
  expect(started.status).toBe(200);
  const { otpauthUri, secret } = (await started.json()) as { otpauthUri: string; secret: string };
  const parsed = URI.parse(otpauthUri) as TOTP;
  expect(parsed.secret.base32).toBe(secret);
  expect([parsed.algorithm, parsed.digits, parsed.period]).toEqual(['SHA1', 6, 30]);
  const wrong = await consoleCall(url, session, 'POST', '/me/second-factor/confirm', { code: codeAt(secret, 5) });
  expect(wrong.status).toBe(400);
  const confirmed = await consoleCall(url, session, 'POST', '/me/second-factor/confirm', { code: codeAt(secret) });
  expect(confirmed.status).toBe(200);
  const { recoveryCodes } = (await confirmed.json()) as { recoveryCodes: string[] };
  expect(recoveryCodes).toHaveLength(10);
  return { secret, recoveryCodes };
}

describe('a user with a second factor', () => {
  const dataDir = freshDataDir();
  const env = testEnv(dataDir);
  const email = 'ana@totp.example';
  const password = 'correct horse battery staple';
  let warden: RunningWarden;
  let secret: string;
  let recoveryCodes: string[];
  let userId: string;

  beforeAll(async () => {
    // One CLI process for the set-up (test/support/warden-process.ts, runCliBatch).
    const [, userMade] = await runCliBatch(env, [
      ['org', 'create', '--id', 'totp', '--name', 'Totp'],
      consoleUserCommand('totp', email, password, ['MODERATOR']),
    ]);
    userId = userMade!.at(-1)!;
    warden = await startWarden(env);
    const first = await login(warden.url, { email, password });
    expect(first.status).toBe(200);
    ({ secret, recoveryCodes } = await enroll(warden.url, first.session!));
  });

  afterAll(async () => {
    await warden?.stop();
  });

  it('keeps the secret and the recovery codes out of the log: sealed, and hashes', () => {
    const started = loggedEvents(dataDir, 'SecondFactorEnrollmentStarted');
    expect(started).toHaveLength(1);
    expect(JSON.stringify(started[0]!.data)).not.toContain(secret);
    const confirmed = loggedEvents(dataDir, 'SecondFactorConfirmed')[0]!;
    for (const code of recoveryCodes) expect(JSON.stringify(confirmed.data)).not.toContain(code.replace(/-/g, ''));
    expect(started[0]!.metadata['actor']).toContain(userId);
  });

  it('needs the code after the password: without it a distinct 401 and no session', async () => {
    const res = await login(warden.url, { email, password });
    expect(res.status).toBe(401);
    expect((res.json['errors'] as Array<{ type: string[] }>)[0]!.type).toEqual(['/errors/second-factor-required']);
    expect(res.session).toBeNull();
  });

  it('refuses a wrong code exactly like a wrong password', async () => {
    const wrongCode = await login(warden.url, { email, password, totp: codeAt(secret, 5) });
    const wrongPassword = await login(warden.url, { email, password: 'not it' });
    expect(wrongCode.status).toBe(401);
    expect(wrongCode.session).toBeNull();
    expect(withoutRequestIds(wrongCode.json)).toEqual(withoutRequestIds(wrongPassword.json));
  });

  it('signs in with a valid code once; the same code again is refused (replay)', async () => {
    // The confirming code spent the current step; the next step's code is within the drift window.
    const code = codeAt(secret, 1);
    const ok = await login(warden.url, { email, password, totp: code });
    expect(ok.status).toBe(200);
    expect(ok.session).not.toBeNull();
    const me = await consoleCall(warden.url, ok.session!, 'GET', '/me');
    expect(me.status).toBe(200);
    const replay = await login(warden.url, { email, password, totp: code });
    expect(replay.status).toBe(401);
    expect(replay.session).toBeNull();
  });

  it('signs in with a recovery code once', async () => {
    const code = recoveryCodes[0]!;
    const ok = await login(warden.url, { email, password, recoveryCode: code.toUpperCase() });
    expect(ok.status).toBe(200);
    const again = await login(warden.url, { email, password, recoveryCode: code });
    expect(again.status).toBe(401);
    const used = loggedEvents(dataDir, 'SecondFactorRecoveryCodeUsed');
    expect(used).toHaveLength(1);
    expect(used[0]!.data).toMatchObject({ userId, remaining: 9 });
    expect(used[0]!.metadata['actor']).toContain(userId);
    const status = await waitFor(async () => {
      const res = await consoleCall(warden.url, ok.session!, 'GET', '/me/second-factor');
      const body = (await res.json()) as { status: string; recoveryCodesRemaining: number };
      return body.recoveryCodesRemaining === 9 && body;
    }, 'the read model to count the spent recovery code');
    expect(status.status).toBe('active');
  });

  it('disables only with a proof, then the password alone signs in again', async () => {
    const { session } = await login(warden.url, { email, password, recoveryCode: recoveryCodes[1]! });
    const withoutProof = await consoleCall(warden.url, session!, 'DELETE', '/me/second-factor', {});
    expect(withoutProof.status).toBe(400);
    expect((await consoleCall(warden.url, session!, 'DELETE', '/me/second-factor')).status).toBe(400);
    const disabled = await consoleCall(warden.url, session!, 'DELETE', '/me/second-factor', { recoveryCode: recoveryCodes[2]! });
    expect(disabled.status).toBe(204);
    expect(loggedEvents(dataDir, 'SecondFactorDisabled').map((e) => e.data['proof'])).toEqual(['recovery-code']);
    expect((await login(warden.url, { email, password })).status).toBe(200);
  });
});

describe('an organization that requires a second factor', () => {
  const dataDir = freshDataDir();
  const env = testEnv(dataDir);
  const email = 'bo@strict.example';
  const password = 'another long passphrase';
  let warden: RunningWarden;

  beforeAll(async () => {
    const file = join(freshDataDir(), 'strict.yaml');
    writeFileSync(file, 'org:\n  id: strict\n  name: Strict\n  settings:\n    requireSecondFactor: true\n');
    // One CLI process for the set-up (test/support/warden-process.ts, runCliBatch).
    await runCliBatch(env, [['apply', file], consoleUserCommand('strict', email, password, ['ADMIN'])]);
    warden = await startWarden(env);
  });

  afterAll(async () => {
    await warden?.stop();
  });

  it('lets a user without one only enroll, until the enrollment is confirmed', async () => {
    const { status, session } = await login(warden.url, { email, password });
    expect(status).toBe(200);
    const me = (await (await consoleCall(warden.url, session!, 'GET', '/me')).json()) as Me;
    expect(me.secondFactorEnrollmentRequired).toBe(true);
    expect(me.user.permissions).toEqual(['USE_CONSOLE']);

    // Enrolling is what the restricted session can do (the 403 of other routes: console.guard.spec.ts).
    expect((await consoleCall(warden.url, session!, 'GET', '/me/second-factor')).status).toBe(200);
    await enroll(warden.url, session!);
    const after = await waitFor(async () => {
      const body = (await (await consoleCall(warden.url, session!, 'GET', '/me')).json()) as Me;
      return body.secondFactorEnrollmentRequired === false && body;
    }, 'the session to lose its restriction');
    expect(after.user.permissions).toContain('MANAGE_API_KEYS');
  });
});

describe('wrong second-factor codes', () => {
  const dataDir = freshDataDir();
  const env = testEnv(dataDir);
  const email = 'cy@throttle.example';
  const password = 'yet another passphrase';
  let warden: RunningWarden;

  beforeAll(async () => {
    // One CLI process for the set-up (test/support/warden-process.ts, runCliBatch).
    await runCliBatch(env, [['org', 'create', '--id', 'throttle', '--name', 'Throttle'], consoleUserCommand('throttle', email, password, ['ANALYST'])]);
    warden = await startWarden(env);
  });

  afterAll(async () => {
    await warden?.stop();
  });

  it('count against the login throttle like wrong passwords, and are audited', async () => {
    const { session } = await login(warden.url, { email, password });
    const { secret } = await enroll(warden.url, session!);
    for (let i = 0; i < 10; i++) expect((await login(warden.url, { email, password, totp: codeAt(secret, 5) })).status).toBe(401);
    const throttled = await login(warden.url, { email, password, totp: codeAt(secret, 1) });
    expect(throttled.status).toBe(429);
    expect(throttled.session).toBeNull();
    const failures = loggedEvents(dataDir, 'ConsoleLoginFailed').filter((e) => e.data['reason'] === 'wrong-second-factor');
    expect(failures).toHaveLength(10);
  });
});
