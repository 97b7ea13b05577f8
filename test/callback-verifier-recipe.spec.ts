import { spawn } from 'node:child_process';
import { generateKeyPairSync, type KeyObject, sign } from 'node:crypto';
import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type Receiver, startReceiver } from './support/http-receiver.js';
import { freePort } from './support/free-port.js';
import { waitFor } from './support/wait-for.js';
import { loadCallbackVerifier } from './support/callback-verifier-recipe.js';

/**
 * The callback verifier docs/callbacks.md gives platforms (examples/callbacks/verify-callback.mjs),
 * against a key endpoint of our own on loopback: one that answers, refuses or is not there. A
 * receiver faces forged callbacks it cannot tell apart before looking up their `kid`; the recipe
 * must neither crash on a refused lookup nor let forged traffic spend the organization's API key.
 * (That it verifies Warden's own callbacks is tested against a real server in
 * test/e2e/callbacks.e2e.spec.ts.)
 */

const ROOT = join(import.meta.dirname, '..');
const API_KEY = 'wdn_recipe-test';
const callbackVerifier = await loadCallbackVerifier();

/** A signing key as Warden publishes it (docs/callbacks.md, "Verifying a callback"). */
function signingKey(kid: string): { kid: string; privateKey: KeyObject; jwk: Record<string, unknown> } {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  return { kid, privateKey, jwk: { ...publicKey.export({ format: 'jwk' }), kid, status: 'active' } };
}

/** The headers of a callback signed with `key` over `<t>.<delivery id>.<raw body>`. */
function signed(key: { kid: string; privateKey: KeyObject }, body: string, t = Math.floor(Date.now() / 1000)): IncomingHttpHeaders {
  const v1 = sign(null, Buffer.from(`${t}.delivery-1.${body}`), key.privateKey).toString('base64');
  return { 'service-delivery-id': 'delivery-1', 'service-signature': `t=${t},kid=${key.kid},v1=${v1}` };
}

describe('the documented callback verifier', () => {
  const current = signingKey('key-1');
  const body = '{"item":{"id":"p1"}}';
  let keyEndpoint: Receiver | undefined;
  afterEach(async () => {
    await keyEndpoint?.close();
    keyEndpoint = undefined;
  });

  /** A key endpoint answering with `answer` (a JWKS by default), recording each request. */
  async function keysServedBy(answer: (res: ServerResponse) => void = (res) => res.end(JSON.stringify({ keys: [current.jwk] }))): Promise<Receiver> {
    keyEndpoint = await startReceiver((_req, res) => answer(res));
    return keyEndpoint;
  }

  it('is printed in docs/callbacks.md as it is in examples/callbacks', () => {
    const docs = readFileSync(join(ROOT, 'docs/callbacks.md'), 'utf8');
    for (const file of ['examples/callbacks/verify-callback.mjs', 'examples/callbacks/receiver.mjs']) {
      expect(docs, file).toContain('```js\n' + readFileSync(join(ROOT, file), 'utf8') + '```');
    }
  });

  it('verifies a signed callback with the key it looked up under the API key, and refuses altered, stale or unsigned ones', async () => {
    const endpoint = await keysServedBy();
    const verifyCallback = callbackVerifier({ wardenUrl: endpoint.url, apiKey: API_KEY });
    expect(await verifyCallback(signed(current, body), Buffer.from(body))).toBe(true);
    expect(endpoint.requests.map((r) => [r.url, r.headers['x-api-key']])).toEqual([['/api/v1/signing_keys', API_KEY]]);
    expect(await verifyCallback(signed(current, body), body.replace('p1', 'p2'))).toBe(false);
    expect(await verifyCallback(signed(current, body, Math.floor(Date.now() / 1000) - 301), body)).toBe(false);
    expect(await verifyCallback({ 'service-delivery-id': 'delivery-1' }, body)).toBe(false);
    expect(await verifyCallback({ ...signed(current, body), 'service-signature': `t=${Math.floor(Date.now() / 1000)},kid=key-1,v1=AAAA` }, body)).toBe(false);
    // The key was known: none of these looked it up again.
    expect(endpoint.requests).toHaveLength(1);
  });

  it('looks keys up once for a burst of forged kids, and not again within the interval', async () => {
    const endpoint = await keysServedBy();
    const verifyCallback = callbackVerifier({ wardenUrl: endpoint.url, apiKey: API_KEY, minRefreshIntervalMs: 60_000 });
    const forgers = Array.from({ length: 20 }, (_, i) => signingKey(`forged-${i}`));
    const results = await Promise.all(forgers.map((f) => verifyCallback(signed(f, body), body)));
    expect(results.every((ok) => ok === false)).toBe(true);
    expect(await verifyCallback(signed(signingKey('forged-late'), body), body)).toBe(false);
    expect(endpoint.requests).toHaveLength(1);
    // The genuine key came with that one lookup.
    expect(await verifyCallback(signed(current, body), body)).toBe(true);
    expect(endpoint.requests).toHaveLength(1);
  });

  it('answers false, without throwing, when the key endpoint refuses (429) or is not there, and recovers once it answers', async () => {
    let status = 429;
    const endpoint = await keysServedBy((res) => {
      if (status === 200) return void res.end(JSON.stringify({ keys: [current.jwk] }));
      res.writeHead(status, { 'content-type': 'application/json', 'retry-after': '1' }).end('{"type":"about:blank","title":"Too Many Requests","status":429}');
    });
    const verifyCallback = callbackVerifier({ wardenUrl: endpoint.url, apiKey: API_KEY, minRefreshIntervalMs: 0 });
    expect(await verifyCallback(signed(current, body), body)).toBe(false);
    status = 200;
    expect(await verifyCallback(signed(current, body), body)).toBe(true);

    const nowhere = callbackVerifier({ wardenUrl: `http://127.0.0.1:${await freePort()}`, apiKey: API_KEY, minRefreshIntervalMs: 0 });
    expect(await nowhere(signed(current, body), body)).toBe(false);
  });

  it('keeps the keys it has when a later lookup fails, and drops a retired key once its key set is refreshed', async () => {
    const next = signingKey('key-2');
    let served: unknown[] = [current.jwk];
    let failing = false;
    const endpoint = await keysServedBy((res) => (failing ? res.writeHead(503).end() : res.end(JSON.stringify({ keys: served }))));
    const verifyCallback = callbackVerifier({ wardenUrl: endpoint.url, apiKey: API_KEY, minRefreshIntervalMs: 0, maxKeySetAgeMs: 60_000 });
    expect(await verifyCallback(signed(current, body), body)).toBe(true);
    failing = true;
    expect(await verifyCallback(signed(next, body), body)).toBe(false);
    expect(await verifyCallback(signed(current, body), body)).toBe(true);
    // Warden rotated to key-2 and retired key-1: the lookup for key-2 replaces the set.
    failing = false;
    served = [next.jwk];
    expect(await verifyCallback(signed(next, body), body)).toBe(true);
    expect(await verifyCallback(signed(current, body), body)).toBe(false);
  });

  it('stops trusting the keys it has once lookups have failed for longer than maxStaleMs, and trusts them again at the first lookup that answers', async () => {
    let failing = false;
    const endpoint = await keysServedBy((res) => (failing ? res.writeHead(401).end() : res.end(JSON.stringify({ keys: [current.jwk] }))));
    // A set older than 100 ms is looked up again (at most every call), stale after 200 ms.
    const verifyCallback = callbackVerifier({ wardenUrl: endpoint.url, apiKey: API_KEY, minRefreshIntervalMs: 0, maxKeySetAgeMs: 100, maxStaleMs: 200 });
    expect(await verifyCallback(signed(current, body), body)).toBe(true);
    failing = true;
    await waitFor(async () => ((await verifyCallback(signed(current, body), body)) ? undefined : true), 'the stale keys to be refused');
    // Warden answers again: the very next callback looks up and verifies (the age is the keys',
    // not the last failed lookup's, which was moments ago).
    failing = false;
    expect(await verifyCallback(signed(current, body), body)).toBe(true);
  });

  it('runs as the receiver docs/callbacks.md starts: 200 for a verified callback, 401 otherwise, 413 past 1 MiB', async () => {
    const endpoint = await keysServedBy();
    const port = await freePort();
    const receiver = spawn(process.execPath, [join(ROOT, 'examples/callbacks/receiver.mjs')], {
      env: { ...process.env, WARDEN_URL: endpoint.url, WARDEN_API_KEY: API_KEY, PORT: String(port) },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    try {
      let output = '';
      receiver.stdout.on('data', (c: Buffer) => (output += c.toString()));
      await waitFor(() => output.includes('receiver listening'), 'the receiver to listen');
      const send = (headers: IncomingHttpHeaders, payload: string | Uint8Array<ArrayBuffer>) =>
        fetch(`http://127.0.0.1:${port}/hooks/remove`, { method: 'POST', headers: headers as Record<string, string>, body: payload });
      expect((await send(signed(current, body), body)).status).toBe(200);
      expect((await send(signed(current, body), body.replace('p1', 'p2'))).status).toBe(401);
      const large = new Uint8Array(1024 * 1024 + 1).fill(97);
      // Answered 413 before the rest is read, and the connection closed: the client may see either.
      const answer = await send(signed(current, body), large).then(
        (r) => r.status,
        () => 'closed',
      );
      expect([413, 'closed']).toContain(answer);
      // Closed by the receiver, which goes on: not a crash.
      expect((await send(signed(current, body), body)).status).toBe(200);
      expect(receiver.exitCode).toBeNull();
      // Not logged: the body of what did not verify (its line came before the last 200's).
      await waitFor(() => output.split('\n').filter((l) => l.includes(' verified ')).length === 2, 'the last callback to be logged');
      expect(output).toContain('NOT VERIFIED');
      expect(output).not.toContain('p2');
    } finally {
      const exited = new Promise((resolve) => receiver.once('exit', resolve));
      receiver.kill();
      await exited;
    }
  });
});
