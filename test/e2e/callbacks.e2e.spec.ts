import { createPublicKey, verify } from 'node:crypto';
import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadCallbackVerifier } from '../support/callback-verifier-recipe.js';
import { expectErrorBody } from '../support/error-body.js';
import { queryLog } from '../support/config-files.js';
import { type Receiver, startReceiver } from '../support/http-receiver.js';
import { waitFor } from '../support/wait-for.js';
import {
  createOrgWithKey,
  freshDataDir,
  retireRotatedKey,
  runCli,
  type RunningWarden,
  startWarden,
  testEnv,
  startConfigured,
} from '../support/warden-process.js';

const CONFIG = join(import.meta.dirname, '../fixtures/callbacks-org.yaml');
const HOOK_TOKEN = 'hook-token-4f1c';
/** User info of the `basic` action's callback URL: alice, password `s3cret:é`. */
const BASIC_USER_INFO = 'alice:s3cret%3A%C3%A9';

type Jwks = { keys: Array<{ kty: string; crv: string; kid: string; x: string }> };
type Request = Receiver['requests'][number];

/**
 * What a receiver does (docs/callbacks.md): find the key by kid, check the signature over
 * `<t>.<delivery id>.<raw body>`, refuse timestamps more than five minutes old.
 */
function verifies(jwks: Jwks, headers: IncomingHttpHeaders, rawBody: string, nowSeconds = Math.floor(Date.now() / 1000)): boolean {
  const fields = Object.fromEntries(
    String(headers['service-signature'])
      .split(',')
      .map((p) => p.split(/=(.*)/s).slice(0, 2)),
  );
  const t = Number(fields['t']);
  const jwk = jwks.keys.find((k) => k.kid === fields['kid']);
  if (!jwk || !Number.isInteger(t) || Math.abs(nowSeconds - t) > 300) return false;
  const key = createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: jwk.x }, format: 'jwk' });
  return verify(null, Buffer.from(`${t}.${String(headers['service-delivery-id'])}.${rawBody}`), key, Buffer.from(fields['v1'] ?? '', 'base64'));
}

function logOf(dataDir: string) {
  const query = <T>(sql: string, ...params: unknown[]): T[] => queryLog<T>(dataDir, sql, ...params);
  return {
    /** The delivery id the rules engine published for an item's action. */
    deliveryId(itemId: string, actionId: string): string | undefined {
      return query<{ data: string }>("SELECT data FROM events WHERE type = 'ActionCallbackRequested' ORDER BY position")
        .map((r) => JSON.parse(r.data) as { deliveryId: string; item: { id: string }; action: { id: string } })
        .find((d) => d.item.id === itemId && d.action.id === actionId)?.deliveryId;
    },
    /** A delivery's events, in order. */
    delivery(deliveryId: string): Array<{ type: string; data: Record<string, unknown> }> {
      return query<{ type: string; data: string }>(
        "SELECT type, data FROM events WHERE stream LIKE 'callback_delivery-%' AND json_extract(data, '$.deliveryId') = ? ORDER BY position",
        deliveryId,
      ).map((r) => ({ type: r.type, data: JSON.parse(r.data) as Record<string, unknown> }));
    },
  };
}

/** The fixture with one more action, `basic`, whose callback URL carries user info (known once the receiver listens). */
function withBasicAction(receiverUrl: string): string {
  const url = `${receiverUrl.replace('://', `://${BASIC_USER_INFO}@`)}/hooks/basic?tenant=hooks`;
  const basic = `  - { id: basic, name: Basic, kind: CUSTOMER_DEFINED_ACTION, itemTypeIds: [post], callback: { url: "${url}" } }\n`;
  const file = join(mkdtempSync(join(tmpdir(), 'warden-callbacks-')), 'callbacks-org.yaml');
  writeFileSync(file, readFileSync(CONFIG, 'utf8').replace(/^rules:$/m, `${basic}rules:`));
  return file;
}

const post = (id: string, text: string) => ({ id, typeId: 'post', data: { text, author: { id: 'u1', typeId: 'user' } } });

describe('signed callbacks, end to end', () => {
  const dataDir = freshDataDir();
  const log = logOf(dataDir);
  /** Per path: the statuses to answer in turn (then 200), or a function of the request. */
  const scripts = new Map<string, Array<number | [number, Record<string, string>]>>();
  let brokenFixed = false;
  let receiver: Receiver;
  let env: NodeJS.ProcessEnv;
  let warden: RunningWarden;
  let key: string;

  beforeAll(async () => {
    receiver = await startReceiver((req, res: ServerResponse) => {
      const path = req.url.split('?')[0]!;
      if (path === '/hooks/broken' && !brokenFixed) {
        res.statusCode = 503;
        res.end('down for maintenance');
        return;
      }
      const next = scripts.get(path)?.shift() ?? 200;
      const [status, headers] = Array.isArray(next) ? next : [next, {}];
      res.writeHead(status, headers);
      res.end(status < 300 ? '{"ok":true}' : '{"ok":false}');
    });
    env = testEnv(dataDir, {
      RECEIVER_URL: receiver.url,
      DOWN_URL: 'http://127.0.0.1:9',
      HOOK_TOKEN,
      WARDEN_CALLBACK_RETRY_SCHEDULE: '50ms,100ms,200ms,400ms,800ms',
    });
    ({ warden, key } = await startConfigured(env, withBasicAction(receiver.url), 'hooks'));
  }, 60_000);
  afterAll(async () => {
    await warden?.stop();
    await receiver?.close();
  });

  const headers = () => ({ 'x-api-key': key, 'content-type': 'application/json' });
  const submit = async (...items: unknown[]) => {
    const res = await fetch(`${warden.url}/api/v1/items/async/`, { method: 'POST', headers: headers(), body: JSON.stringify({ items }) });
    expect(res.status).toBe(202);
  };
  const jwks = async (apiKey = key): Promise<Jwks> => {
    const res = await fetch(`${warden.url}/api/v1/signing_keys`, { headers: { 'x-api-key': apiKey } });
    expect(res.status).toBe(200);
    return (await res.json()) as Jwks;
  };
  const to = (path: string) => receiver.requests.filter((r) => r.url.split('?')[0] === path);
  const arrivals = (path: string, deliveryId: string) => to(path).filter((r) => r.headers['service-delivery-id'] === deliveryId);
  const deliveries = async (query = '') => {
    const res = await fetch(`${warden.url}/api/v1/callbacks/deliveries${query}`, { headers: { 'x-api-key': key } });
    expect(res.status).toBe(200);
    return (await res.json()) as { deliveries: Array<Record<string, unknown>>; total: number; nextOffset: number | null };
  };
  const published = (itemId: string, actionId: string) => waitFor(() => log.deliveryId(itemId, actionId), `the ${actionId} publication of ${itemId}`);
  const settled = (deliveryId: string, type: 'CallbackDelivered' | 'CallbackDeadLettered', count = 1) =>
    waitFor(() => log.delivery(deliveryId).filter((e) => e.type === type).length >= count || undefined, `${type} for ${deliveryId}`);

  it("delivers a matching item's callback with the exact body and the configured headers, verifiably signed", async () => {
    await submit(post('p-scam', 'this is a scam'));
    const deliveryId = await published('p-scam', 'remove');
    const [request] = await waitFor(
      () => (arrivals('/hooks/remove', deliveryId).length > 0 ? arrivals('/hooks/remove', deliveryId) : undefined),
      'the callback',
    );
    const { body, headers: received, method, url } = request as Request;
    expect(method).toBe('POST');
    expect(url).toBe('/hooks/remove?tenant=hooks');
    expect(body).toBe(
      JSON.stringify({
        item: { id: 'p-scam', typeId: 'post', typeName: 'Post' },
        action: { id: 'remove' },
        policies: [{ id: 'scam', name: 'Scam', penalty: 'HIGH' }],
        rules: [{ id: 'remove-scams', name: 'Remove scams' }],
        custom: { severity: 'high', notify: true },
        creator: { id: 'u1', typeId: 'user' },
        // The user is known: the count after this action (its action applies no strikes).
        userStrikeCount: 0,
      }),
    );
    expect(received['authorization']).toBe(`Bearer ${HOOK_TOKEN}`);
    expect(received['x-tenant']).toBe('hooks');
    expect(received['content-type']).toBe('application/json');
    expect(received['service-delivery-id']).toBe(deliveryId);
    expect(received['service-signature']).toMatch(/^t=\d+,kid=[\w-]+,v1=[A-Za-z0-9+/]+=*$/);

    const keys = await jwks();
    expect(keys.keys).toHaveLength(1);
    expect(keys.keys[0]).toEqual({ kty: 'OKP', crv: 'Ed25519', status: 'active', kid: expect.any(String), x: expect.any(String) });
    expect(verifies(keys, received, body)).toBe(true);
    expect(verifies(keys, received, body.replace('"severity":"high"', '"severity":"low"'))).toBe(false);
    expect(verifies(keys, { ...received, 'service-delivery-id': 'another-delivery' }, body)).toBe(false);
    const t = Number(/t=(\d+)/.exec(String(received['service-signature']))![1]);
    expect(verifies(keys, received, body, t + 301)).toBe(false);
    const backdated = String(received['service-signature']).replace(`t=${t}`, `t=${t - 3600}`);
    expect(verifies(keys, { ...received, 'service-signature': backdated }, body, t - 3600)).toBe(false);
    await settled(deliveryId, 'CallbackDelivered');
    expect(log.delivery(deliveryId).map((e) => e.type)).toEqual(['CallbackDeliveryRequested', 'CallbackDelivered']);
  }, 30_000);

  it('the verifier of docs/callbacks.md (examples/callbacks) verifies a real callback and refuses a tampered one', async () => {
    const verifyCallback = (await loadCallbackVerifier())({ wardenUrl: warden.url, apiKey: key });
    const request = to('/hooks/remove')[0]!;
    expect(await verifyCallback(request.headers, Buffer.from(request.body))).toBe(true);
    expect(await verifyCallback(request.headers, request.body.replace('p-scam', 'p-other'))).toBe(false);
    const stale = String(request.headers['service-signature']).replace(/t=(\d+)/, (_m, t: string) => `t=${Number(t) - 301}`);
    expect(await verifyCallback({ ...request.headers, 'service-signature': stale }, request.body)).toBe(false);
  }, 30_000);

  it('names the item itself as the creator of a USER item', async () => {
    await submit({ id: 'u-bot', typeId: 'user', data: { name: 'spam bot 3000' } });
    const deliveryId = await published('u-bot', 'ban');
    const [request] = await waitFor(() => (arrivals('/hooks/ban', deliveryId).length > 0 ? arrivals('/hooks/ban', deliveryId) : undefined), 'the callback');
    expect(JSON.parse(request!.body)).toEqual({
      item: { id: 'u-bot', typeId: 'user', typeName: 'User' },
      action: { id: 'ban' },
      policies: [{ id: 'spam', name: 'Spam', penalty: 'LOW' }],
      rules: [{ id: 'ban-bots', name: 'Ban bots' }],
      custom: {},
      creator: { id: 'u-bot', typeId: 'user' },
      userStrikeCount: 0,
    });
  }, 30_000);

  it("sends a callback URL's user info as Authorization: Basic, the URL without it, and keeps it out of the log in plaintext", async () => {
    const res = await fetch(`${warden.url}/api/v1/actions`, {
      method: 'POST',
      headers: headers(),
      body: JSON.stringify({ actionId: 'basic', itemId: 'p-basic', itemTypeId: 'post' }),
    });
    expect(res.status).toBe(202);
    const deliveryId = await published('p-basic', 'basic');
    // Sent with the user info in the URL, the guarded client refused every attempt and the delivery was dead-lettered.
    await waitFor(() => log.delivery(deliveryId).find((e) => e.type !== 'CallbackDeliveryRequested'), 'the first attempt');
    expect(log.delivery(deliveryId).map((e) => e.type)).toEqual(['CallbackDeliveryRequested', 'CallbackDelivered']);
    const [request] = arrivals('/hooks/basic', deliveryId);
    expect(request!.url).toBe('/hooks/basic?tenant=hooks');
    expect(request!.headers['authorization']).toBe(`Basic ${Buffer.from('alice:s3cret:é').toString('base64')}`);
    expect(request!.headers['host']).toBe(new URL(receiver.url).host);
    expect(verifies(await jwks(), request!.headers, request!.body)).toBe(true);
    // The listing reads the deliveries read model, which follows the log a moment behind it.
    const listed = await waitFor(
      async () => (await deliveries('?status=delivered&limit=100')).deliveries.find((d) => d['deliveryId'] === deliveryId),
      'the delivery listed as delivered',
    );
    expect(JSON.stringify(listed)).not.toContain('alice');
    expect(queryLog<{ n: number }>(dataDir, "SELECT count(*) AS n FROM events WHERE data LIKE '%alice%' OR data LIKE '%s3cret%'")[0]!.n).toBe(0);
  }, 30_000);

  it('retries a receiver answering 500, 500, 200 and delivers on the third attempt with one delivery id', async () => {
    scripts.set('/hooks/flaky', [500, 500]);
    await submit(post('p-flaky', 'a flaky one'));
    const deliveryId = await published('p-flaky', 'flaky');
    await settled(deliveryId, 'CallbackDelivered');
    const requests = to('/hooks/flaky');
    expect(requests).toHaveLength(3);
    expect(new Set(requests.map((r) => r.headers['service-delivery-id']))).toEqual(new Set([deliveryId]));
    expect(new Set(requests.map((r) => r.body)).size).toBe(1);
    const keys = await jwks();
    for (const r of requests) expect(verifies(keys, r.headers, r.body)).toBe(true);
    expect(log.delivery(deliveryId).map((e) => [e.type, e.data['attempt'] ?? null, e.data['status'] ?? null])).toEqual([
      ['CallbackDeliveryRequested', null, null],
      ['CallbackAttemptFailed', 1, 500],
      ['CallbackAttemptFailed', 2, 500],
      ['CallbackDelivered', 3, 200],
    ]);
  }, 30_000);

  it('retries a receiver answering 400 then 200 and delivers on the second attempt', async () => {
    scripts.set('/hooks/picky', [400]);
    await submit(post('p-picky', 'a picky one'));
    const deliveryId = await published('p-picky', 'picky');
    await settled(deliveryId, 'CallbackDelivered');
    expect(arrivals('/hooks/picky', deliveryId)).toHaveLength(2);
    expect(log.delivery(deliveryId).map((e) => e.type)).toEqual(['CallbackDeliveryRequested', 'CallbackAttemptFailed', 'CallbackDelivered']);
  }, 30_000);

  it("waits as long as the receiver's Retry-After asks before retrying", async () => {
    scripts.set('/hooks/busy', [[429, { 'Retry-After': '1' }]]);
    await submit(post('p-busy', 'a busy one'));
    const deliveryId = await published('p-busy', 'busy');
    await settled(deliveryId, 'CallbackDelivered');
    const failed = log.delivery(deliveryId).find((e) => e.type === 'CallbackAttemptFailed')!.data;
    expect(failed).toMatchObject({ status: 429, retryAfterMs: 1000 });
    expect(Date.parse(String(failed['nextAttemptAt'])) - Date.parse(String(failed['attemptedAt']))).toBeGreaterThanOrEqual(1000);
  }, 30_000);

  it('dead-letters after six failures in a row; redeliver then succeeds with the same delivery id', async () => {
    await submit(post('p-broken-1', 'broken one'), post('p-broken-2', 'broken two'));
    const first = await published('p-broken-1', 'broken');
    const second = await published('p-broken-2', 'broken');
    await settled(first, 'CallbackDeadLettered');
    await settled(second, 'CallbackDeadLettered');
    expect(arrivals('/hooks/broken', first)).toHaveLength(6);
    expect(log.delivery(first).filter((e) => e.type === 'CallbackAttemptFailed')).toHaveLength(6);

    const dead = await waitFor(async () => {
      const page = await deliveries('?status=dead');
      return page.total >= 2 ? page : undefined;
    }, 'the dead letters in the read model');
    expect(dead.deliveries.map((d) => d['deliveryId']).sort()).toEqual([first, second].sort());
    expect(dead.deliveries[0]).toMatchObject({ status: 'dead', attempts: 6, lastStatus: 503, nextAttemptAt: null, actionId: 'broken' });

    brokenFixed = true;
    const one = await runCli(['callbacks', 'redeliver', first], env);
    expect(one.code, one.stderr).toBe(0);
    expect(one.stdout).toContain(`Redelivering ${first}`);
    await settled(first, 'CallbackDelivered');
    expect(arrivals('/hooks/broken', first)).toHaveLength(7);
    expect(
      log
        .delivery(first)
        .slice(-2)
        .map((e) => [e.type, e.data['cycle'], e.data['attempt'] ?? null]),
    ).toEqual([
      ['CallbackRedeliveryRequested', 2, null],
      ['CallbackDelivered', 2, 1],
    ]);

    const all = await runCli(['callbacks', 'redeliver', '--all-dead', '--org', 'hooks'], env);
    expect(all.code, all.stderr).toBe(0);
    expect(all.stdout).toContain(`Redelivering ${second}`);
    expect(all.stdout).not.toContain(first);
    await settled(second, 'CallbackDelivered');
    const last = arrivals('/hooks/broken', second).at(-1)!;
    expect(last.headers['service-delivery-id']).toBe(second);
    expect(verifies(await jwks(), last.headers, last.body)).toBe(true);

    const unknown = await runCli(['callbacks', 'redeliver', '00000000-0000-8000-8000-000000000000'], env);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('No callback delivery');
    const usage = await runCli(['callbacks', 'redeliver'], env);
    expect(usage.code).toBe(2);
  }, 60_000);

  it('lists deliveries by status, paginated, and only those of the calling organization', async () => {
    const everything = await waitFor(async () => {
      const page = await deliveries('?status=delivered&limit=100');
      return page.total >= 7 ? page : undefined;
    }, 'the delivered callbacks');
    expect(everything.deliveries.every((d) => d['status'] === 'delivered')).toBe(true);
    const firstPage = await deliveries('?limit=2');
    expect(firstPage.deliveries).toHaveLength(2);
    expect(firstPage.nextOffset).toBe(2);
    const secondPage = await deliveries(`?limit=2&offset=${firstPage.nextOffset}`);
    expect(secondPage.deliveries.map((d) => d['deliveryId'])).not.toContain(firstPage.deliveries[0]!['deliveryId']);
    expect(JSON.stringify(firstPage)).not.toContain(HOOK_TOKEN);
    expect(JSON.stringify(firstPage)).not.toContain('tenant=hooks');
    expect((await deliveries('?status=pending')).deliveries.every((d) => d['status'] === 'pending')).toBe(true);

    const bad = await fetch(`${warden.url}/api/v1/callbacks/deliveries?status=lost`, { headers: { 'x-api-key': key } });
    await expectErrorBody(bad, 400, '/errors/invalid-user-input', '/status');
    await expectErrorBody(
      await fetch(`${warden.url}/api/v1/callbacks/deliveries?limit=0`, { headers: { 'x-api-key': key } }),
      400,
      '/errors/invalid-user-input',
      '/limit',
    );
    await expectErrorBody(await fetch(`${warden.url}/api/v1/callbacks/deliveries`), 401, '/errors/unauthorized');

    const otherKey = await createOrgWithKey(env, 'elsewhere');
    const other = await fetch(`${warden.url}/api/v1/callbacks/deliveries`, { headers: { 'x-api-key': otherKey } });
    expect(((await other.json()) as { total: number }).total).toBe(0);
    const otherKeys = await jwks(otherKey);
    expect(otherKeys.keys[0]!.kid).not.toBe((await jwks()).keys[0]!.kid);
  }, 30_000);

  it('sends an appeal decision callback from the CLI, signed, to the appeal callback URL', async () => {
    // The same appeal decision, sent twice: once, then again as a repeat.
    const sendAppealCallback = () =>
      runCli(
        [
          'appeal-callback',
          'send',
          '--org',
          'hooks',
          '--appeal',
          'appeal-77',
          '--item-type',
          'post',
          '--item',
          'p-scam',
          '--by-type',
          'user',
          '--by',
          'u1',
          '--decision',
          'ACCEPT',
        ],
        env,
      );
    const sent = await sendAppealCallback();
    expect(sent.code, sent.stderr).toBe(0);
    const deliveryId = sent.stdout.trim().split('\n').pop()!;
    const [request] = await waitFor(
      () => (arrivals('/hooks/appeals', deliveryId).length > 0 ? arrivals('/hooks/appeals', deliveryId) : undefined),
      'the appeal callback',
    );
    expect(request!.body).toBe(
      JSON.stringify({
        appealId: 'appeal-77',
        item: { id: 'p-scam', typeId: 'post', typeName: 'Post' },
        appealedBy: { id: 'u1', typeId: 'user' },
        appealDecision: 'ACCEPT',
        custom: { source: 'warden', version: 2 },
      }),
    );
    expect(request!.headers['x-appeal-token']).toBe(HOOK_TOKEN);
    expect(verifies(await jwks(), request!.headers, request!.body)).toBe(true);

    const again = await sendAppealCallback();
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('sent before');
    const wrong = await runCli(
      [
        'appeal-callback',
        'send',
        '--org',
        'hooks',
        '--appeal',
        'a',
        '--item-type',
        'post',
        '--item',
        'p',
        '--by-type',
        'user',
        '--by',
        'u1',
        '--decision',
        'MAYBE',
      ],
      env,
    );
    expect(wrong.code).toBe(2);
  }, 30_000);

  it('rotates the signing key: new callbacks use the new key, the old one verifies until it is retired', async () => {
    const before = await jwks();
    const oldKid = before.keys[0]!.kid;
    const rotated = await runCli(['signing-key', 'rotate', '--org', 'hooks'], env);
    expect(rotated.code, rotated.stderr).toBe(0);
    expect(rotated.stdout).toContain(`${oldKid} keeps verifying until it is retired`);
    const both = await jwks();
    expect(both.keys.map((k) => k.kid)).toEqual([expect.not.stringMatching(oldKid), oldKid]);
    const newKid = both.keys[0]!.kid;

    // The server notices a rotation made by another process (the CLI) without a restart: new
    // items' callbacks come to be signed with the new key.
    let attempt = 0;
    const request = await waitFor(
      async () => {
        const itemId = `p-scam-rotated-${attempt++}`;
        await submit(post(itemId, 'another scam'));
        const deliveryId = await published(itemId, 'remove');
        const [arrived] = await waitFor(
          () => (arrivals('/hooks/remove', deliveryId).length > 0 ? arrivals('/hooks/remove', deliveryId) : undefined),
          `the callback of ${itemId}`,
        );
        return String(arrived!.headers['service-signature']).includes(`kid=${newKid},`) && arrived!;
      },
      { what: `a callback signed with the new key ${newKid}`, intervalMs: 100 },
    );
    expect(verifies(both, request.headers, request.body)).toBe(true);

    // `--kid=<kid>`: a key id may begin with '-', which would read as an option after a space.
    const refused = await runCli(['signing-key', 'retire', '--org', 'hooks', `--kid=${newKid}`], env);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('rotate first');
    // A key rotated out moments ago is not retired yet (a running server may still sign with it);
    // it is from the instant the refusal names.
    const { refused: early, retired } = await retireRotatedKey(env, 'hooks', oldKid);
    if (early) expect(early.stderr).toContain('rotated out moments ago');
    expect(retired.code, retired.stderr).toBe(0);
    expect((await jwks()).keys.map((k) => k.kid)).toEqual([newKid]);
    const listed = await runCli(['signing-key', 'list', '--org', 'hooks'], env);
    expect(listed.stdout).toMatch(new RegExp(`${oldKid}\\s+retired`));
    expect(listed.stdout).toMatch(new RegExp(`${newKid}\\s+active`));
  }, 30_000);
});

describe('callbacks across a crash', () => {
  it('delivers, once the receiver is back, a callback whose receiver was down while Warden was killed and restarted', async () => {
    const dataDir = freshDataDir();
    const log = logOf(dataDir);
    // Take a free port for the receiver, then leave it closed: the receiver is down.
    const probe = await startReceiver();
    const downUrl = probe.url;
    await probe.close();
    const env = testEnv(dataDir, {
      RECEIVER_URL: 'http://127.0.0.1:9',
      DOWN_URL: downUrl,
      HOOK_TOKEN,
      WARDEN_CALLBACK_RETRY_SCHEDULE: '200ms,500ms,1s,4s,8s',
    });
    const configured = await startConfigured(env, CONFIG, 'hooks');
    const key = configured.key;
    let warden = configured.warden;
    let receiver: Receiver | undefined;
    try {
      const res = await fetch(`${warden.url}/api/v1/items/async/`, {
        method: 'POST',
        headers: { 'x-api-key': key, 'content-type': 'application/json' },
        body: JSON.stringify({ items: [post('p-away', 'away for a while')] }),
      });
      expect(res.status).toBe(202);
      const deliveryId = await waitFor(() => log.deliveryId('p-away', 'away'), 'the publication');
      await waitFor(() => log.delivery(deliveryId).some((e) => e.type === 'CallbackAttemptFailed') || undefined, 'a failed attempt');
      await warden.stop('SIGKILL');
      expect(log.delivery(deliveryId).some((e) => e.type === 'CallbackDelivered')).toBe(false);

      warden = await startWarden(env);
      receiver = await listenOn(Number(new URL(downUrl).port));
      await waitFor(() => log.delivery(deliveryId).some((e) => e.type === 'CallbackDelivered') || undefined, {
        what: 'the delivery after the restart',
        timeoutMs: 25_000,
      });
      const received = receiver.requests.filter((r) => r.headers['service-delivery-id'] === deliveryId);
      expect(received.length).toBeGreaterThanOrEqual(1);
      expect(JSON.parse(received[0]!.body)).toMatchObject({ item: { id: 'p-away' }, action: { id: 'away' } });
      const events = log.delivery(deliveryId);
      expect(events.filter((e) => e.type === 'CallbackDelivered')).toHaveLength(1);
      expect(events.filter((e) => e.type === 'CallbackDeadLettered')).toHaveLength(0);
      const keys = (await (await fetch(`${warden.url}/api/v1/signing_keys`, { headers: { 'x-api-key': key } })).json()) as Jwks;
      expect(verifies(keys, received[0]!.headers, received[0]!.body)).toBe(true);
    } finally {
      await warden.stop();
      await receiver?.close();
    }
  }, 90_000);
});

/** A receiver on a given port (the one a callback URL names). */
async function listenOn(port: number): Promise<Receiver> {
  const { createServer } = await import('node:http');
  const requests: Receiver['requests'] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      res.end('{}');
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  return { url: `http://127.0.0.1:${port}`, requests, close: () => new Promise<void>((r) => server.close(() => r())) };
}
