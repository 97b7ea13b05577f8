import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Secret, TOTP } from 'otpauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loggedEvents, writeConfig } from '../support/config-files.js';
import { REVIEW_PASSWORD, type ReviewWorld, reviewOrgConfig, type Session, startReceiver, startReviewWorld } from '../support/review-fixture.js';
import { waitFor } from '../support/wait-for.js';
import { runCli, runCliWithInput } from '../support/warden-process.js';

/**
 * Every credential value in the log, as stored (docs/audit.md, "Credentials"): the named fields
 * (password, session, CSRF and lock token hashes, recovery-code hashes, an API key's hash) and
 * the ciphertext of every value sealed under the keyring (a private signing key, a TOTP secret).
 * By event type, so that the test can say that each kind it must look for is there to look for.
 */
function credentialsInLog(dataDir: string): Map<string, string[]> {
  const NAMED = ['passwordHash', 'tokenHash', 'csrfTokenHash', 'lockTokenHash', 'recoveryCodeHashes'];
  const found = new Map<string, string[]>();
  const add = (type: string, value: unknown) => {
    const values = (Array.isArray(value) ? value : [value]).filter((v): v is string => typeof v === 'string' && v.length >= 16);
    if (values.length) found.set(type, [...(found.get(type) ?? []), ...values]);
  };
  const walk = (type: string, value: unknown, top: boolean): void => {
    if (typeof value !== 'object' || value === null) return;
    if (Array.isArray(value)) return value.forEach((v) => walk(type, v, false));
    const o = value as Record<string, unknown>;
    if (['kid', 'iv', 'ct', 'tag'].every((k) => typeof o[k] === 'string')) return add(type, o['ct']);
    for (const [k, v] of Object.entries(o)) {
      if (top && (NAMED.includes(k) || (type === 'ApiKeyCreated' && k === 'hash'))) add(type, v);
      else walk(type, v, false);
    }
  };
  for (const e of loggedEvents(dataDir)) walk(e.type, e.data, true);
  return found;
}

/**
 * Issue 31, "Also build": AUDITOR reads the audit trail and changes nothing; personal data only
 * while the organization grants it (`org.settings.auditorPersonalData`); an ANALYST never exports
 * personal data (docs/console-access.md, "Roles").
 */
describe('the AUDITOR role, and personal data in audit reads', () => {
  let world: ReviewWorld;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  const TEXT = 'words only their writer and the moderators should read';
  const session = (role: string): Session => world.sessions[role]!;
  const get = (role: string, path: string) => world.call(session(role), 'GET', path);
  const HISTORY = '/api/console/v1/items/post/au-1/history';
  const EXPORT = '/api/console/v1/audit/export';
  /** The organization grants its auditors personal data (applying it again changes nothing). */
  const grantAuditorPersonalData = async () => {
    const granted = reviewOrgConfig(receiver.url).replace(
      'org: { id: rev, name: Review Org }',
      'org: { id: rev, name: Review Org, settings: { auditorPersonalData: true } }',
    );
    const applied = await runCli(['apply', writeConfig(granted)], world.env);
    expect(applied.code, applied.stderr).toBe(0);
    await waitFor(async () => ((await (await get('AUDITOR', HISTORY)).text()).includes(TEXT) ? true : undefined), 'the history with the text');
  };

  beforeAll(async () => {
    receiver = await startReceiver();
    world = await startReviewWorld(reviewOrgConfig(receiver.url), ['ADMIN', 'ANALYST', 'AUDITOR']);
    const post = { id: 'au-1', typeId: 'post', data: { text: TEXT, author: { id: 'u-au', typeId: 'user' } } };
    expect((await world.api('POST', '/api/v1/items/async', { items: [post] })).status).toBe(202);
    await waitFor(async () => ((await get('ADMIN', HISTORY)).status === 200 ? true : undefined), "the item's history");
  }, 90_000);

  afterAll(async () => {
    await world?.warden.stop();
    await receiver?.close();
  });

  it('lets an AUDITOR read a history and export the trail, without personal data by default', async () => {
    const history = await get('AUDITOR', HISTORY);
    expect(history.status).toBe(200);
    const page = (await history.json()) as { entries: Array<{ type: string; data: Record<string, unknown> }> };
    const submitted = page.entries.find((e) => e.type === 'ItemSubmitted');
    expect(submitted).toBeDefined();
    expect(JSON.stringify(page)).not.toContain(TEXT);
    // The same history opens the text for an ANALYST, as before AUDITOR existed.
    expect(await (await get('ANALYST', HISTORY)).text()).toContain(TEXT);

    const exported = await get('AUDITOR', EXPORT);
    expect(exported.status).toBe(200);
    const text = await exported.text();
    expect(text.split('\n')[0]).toMatch(/"kind":"header"/);
    expect(text).toContain('"type":"ItemSubmitted"');
    expect(text).not.toContain(TEXT);
    const withPersonalData = await get('AUDITOR', `${EXPORT}?includePersonalData=true`);
    expect(withPersonalData.status).toBe(403);
    expect(((await withPersonalData.json()) as { errors: Array<{ type: string[] }> }).errors[0]!.type).toContain('/errors/forbidden');
  });

  it('refuses an AUDITOR everything that changes something or shows credentials', async () => {
    const claim = await world.call(session('AUDITOR'), 'POST', '/api/console/v1/queues/default/claim');
    expect(claim.status).toBe(403);
    for (const path of [
      '/api/console/v1/users',
      '/api/console/v1/api-keys',
      '/api/console/v1/queues',
      '/api/console/v1/callbacks/deliveries',
      '/api/console/v1/sso',
    ]) {
      expect((await get('AUDITOR', path)).status, path).toBe(403);
    }
    const me = (await (await get('AUDITOR', '/api/console/v1/me')).json()) as { user: { roles: string[]; permissions: string[] } };
    expect(me.user.roles).toEqual(['AUDITOR']);
    expect(me.user.permissions).toEqual(['USE_CONSOLE', 'VIEW_AUDIT', 'AUDIT_PERSONAL_DATA_IF_GRANTED', 'VIEW_INSIGHTS', 'INVESTIGATE']);
  });

  it('never lets an ANALYST export personal data; an ADMIN may', async () => {
    const refused = await get('ANALYST', `${EXPORT}?includePersonalData=true`);
    expect(refused.status).toBe(403);
    const plain = await get('ANALYST', EXPORT);
    expect(plain.status).toBe(200);
    expect(await plain.text()).not.toContain(TEXT);
    const admin = await get('ADMIN', `${EXPORT}?includePersonalData=true`);
    expect(admin.status).toBe(200);
    expect(await admin.text()).toContain(TEXT);
    // A value that is not a boolean is a 400 with its pointer, not a 500.
    const bad = await get('ADMIN', `${EXPORT}?includePersonalData=yes`);
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { errors: Array<{ pointer?: string }> }).errors[0]!.pointer).toBe('/includePersonalData');
  });

  it('shows an AUDITOR personal data once the organization grants it, and the grant is an event of its configuration', async () => {
    await grantAuditorPersonalData();
    const exported = await get('AUDITOR', `${EXPORT}?includePersonalData=true`);
    expect(exported.status).toBe(200);
    const lines = (await exported.text()).trim().split('\n');
    expect(lines.join('\n')).toContain(TEXT);
    // Export lines carry the chained stored form only (docs/audit.md, chain v2): the grant is read there.
    const grant = lines
      .map((l) => JSON.parse(l) as { type?: string; stored?: { data?: { settings?: Record<string, unknown> } } })
      .filter((e) => e.type === 'OrgSettingsChanged');
    expect(grant.at(-1)!.stored!.data!.settings!['auditorPersonalData']).toBe(true);
    // The grant is the auditors': an ANALYST still exports no personal data.
    expect((await get('ANALYST', `${EXPORT}?includePersonalData=true`)).status).toBe(403);
  });

  it('hands no credential or credential hash to anyone: CLI and console exports, every role, with and without personal data; each verifies', async () => {
    // A second factor, so that a sealed TOTP secret and recovery-code hashes are in the log too.
    const enrolled = await world.call(session('ANALYST'), 'POST', '/api/console/v1/me/second-factor');
    expect(enrolled.status).toBe(200);
    const { secret } = (await enrolled.json()) as { secret: string };
    const code = new TOTP({ algorithm: 'SHA1', digits: 6, period: 30, secret: Secret.fromBase32(secret) }).generate();
    const confirmed = await world.call(session('ANALYST'), 'POST', '/api/console/v1/me/second-factor/confirm', { code });
    expect(confirmed.status, await confirmed.clone().text()).toBe(200);
    const { recoveryCodes } = (await confirmed.json()) as { recoveryCodes: string[] };
    await waitFor(() => (loggedEvents(world.dataDir, 'SecondFactorConfirmed').length === 1 ? true : undefined), 'the confirmed second factor in the log');
    // A password set on its own (the review world's users got theirs with their creation).
    const created = await runCli(['user', 'create', '--org', 'rev', '--email', 'later@rev.example', '--role', 'MODERATOR'], world.env);
    expect(created.code, created.stderr).toBe(0);
    const set = await runCliWithInput(['user', 'set-password', '--org', 'rev', '--email', 'later@rev.example'], world.env, `${REVIEW_PASSWORD}\n`);
    expect(set.code, set.stderr).toBe(0);
    // The organization's signing key is made when first needed (an export's signed head needs it).
    expect((await get('ADMIN', EXPORT)).status).toBe(200);
    await grantAuditorPersonalData();

    const credentials = credentialsInLog(world.dataDir);
    // Each kind the issue names is there to be looked for (issue 31 item 7), or the test proves nothing.
    for (const type of [
      'UserCreated',
      'UserPasswordSet',
      'ApiKeyCreated',
      'ConsoleSessionOpened',
      'SigningKeyCreated',
      'SecondFactorEnrollmentStarted',
      'SecondFactorConfirmed',
    ]) {
      expect(credentials.get(type)?.length ?? 0, type).toBeGreaterThan(0);
    }
    const secrets = [...credentials.entries()].flatMap(([type, values]) => values.map((value) => ({ type, value })));
    const plaintext = [REVIEW_PASSWORD, secret, ...recoveryCodes, ...recoveryCodes.map((c) => c.replace(/-/g, ''))];

    const file = (name: string) => join(world.dataDir, name);
    const jwks = await world.api('GET', '/api/v1/signing_keys?include=retired');
    expect(jwks.status).toBe(200);
    writeFileSync(file('jwks.json'), await jwks.text());
    const exports: Record<string, string> = {};
    for (const [name, flags] of [
      ['cli', []],
      ['cli with personal data', ['--include-personal-data']],
    ] as const) {
      const r = await runCli(['audit', 'export', '--org', 'rev', '--out', file(`${name}.ndjson`), ...flags], world.env);
      expect(r.code, r.stderr).toBe(0);
      exports[name] = readFileSync(file(`${name}.ndjson`), 'utf8');
    }
    // ANALYST never has personal data in an export; AUDITOR has it now that the organization grants it.
    for (const [role, query] of [
      ['ADMIN', ''],
      ['ADMIN', '?includePersonalData=true'],
      ['ANALYST', ''],
      ['AUDITOR', ''],
      ['AUDITOR', '?includePersonalData=true'],
    ] as const) {
      const r = await get(role, `${EXPORT}${query}`);
      expect(r.status, `${role}${query}`).toBe(200);
      exports[`${role}${query}`] = await r.text();
    }
    expect(exports['ADMIN?includePersonalData=true']).toContain(TEXT);
    expect(exports['AUDITOR?includePersonalData=true']).toContain(TEXT);

    for (const [name, text] of Object.entries(exports)) {
      for (const { type, value } of secrets) expect(text.includes(value), `${name} holds a credential of ${type}: ${value.slice(0, 12)}…`).toBe(false);
      for (const value of plaintext) expect(text.includes(value), `${name} holds ${value.slice(0, 6)}…`).toBe(false);
      // The events are there, each credential by its digest (the chain covers the digest, so it still verifies).
      for (const field of ['passwordHash', 'tokenHash', 'csrfTokenHash', 'recoveryCodeHashes', 'secret', 'd', 'hash'])
        expect(text, `${name}: ${field}`).toContain(`"${field}":{"$sha256":`);
      writeFileSync(file('checked.ndjson'), text);
      const verified = await runCli(['audit', 'verify', file('checked.ndjson'), '--jwks', file('jwks.json')], world.env);
      expect(verified.code, `${name}\n${verified.stdout}${verified.stderr}`).toBe(0);
      expect(verified.stdout, name).toMatch(/^OK: .* [1-9]\d* signature\(s\) verified/m);
    }
  }, 120_000);
});
