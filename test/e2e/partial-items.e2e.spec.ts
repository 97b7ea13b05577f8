import { createPublicKey, verify } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventCount } from '../support/config-files.js';
import { waitFor } from '../support/wait-for.js';
import {
  consoleLogin,
  consoleUserCommand,
  freshDataDir,
  runCli,
  runCliBatch,
  type RunningWarden,
  startConfigured,
  startWarden,
  testEnv,
} from '../support/warden-process.js';
import { UNPOPULAR_SPAM_RULE_AND_QUEUE } from '../../bench/support/partial-items-config.mjs';

const TOKEN = 'items-token-7d2e';
const PASSWORD = 'correct horse battery staple';

/** The two organizations: `parts` with a working endpoint on loopback, `walled` whose endpoint is a private address. */
const config = (orgId: string, url: string) => `
org: { id: ${orgId}, name: ${orgId} }
itemTypes:
  - id: post
    name: Post
    kind: CONTENT
    version: "2"
    fields:
      - { name: text, type: STRING, required: true }
      - { name: likes, type: NUMBER, required: true }
      - { name: author, type: RELATED_ITEM, itemTypeIds: [user] }
    roles: { creator: author }
  - { id: user, name: User, kind: USER, fields: [{ name: name, type: STRING, required: true }], roles: { displayName: name } }
${UNPOPULAR_SPAM_RULE_AND_QUEUE}
partialItems:
  url: ${url}
  headers: { Authorization: "Bearer \${ITEMS_TOKEN}" }
  timeoutMs: 2000
  cacheSeconds: 60
  retries: 1
`;

interface Asked {
  headers: IncomingHttpHeaders;
  body: string;
  json: { type: string; version: number; orgId: string; requestId: string; reason: string; items: Array<{ id: string; typeId: string }> };
}

/** What the customer holds: whole items by `typeId/id`; `slow` ones answer long after the timeout. */
const HELD: Record<string, { typeVersion?: string; data: Record<string, unknown> }> = {
  'post/p-spam': { typeVersion: '2', data: { text: 'buy spam', likes: 1, author: { id: 'u-1', typeId: 'user' } } },
  'post/p-slow': { data: { text: 'slow spam', likes: 0 } },
  'user/u-1': { typeVersion: '7', data: { name: 'Una' } },
  // Erased (GDPR) while its whole item is cached.
  'post/p-gone': { data: { text: 'gone spam', likes: 0, author: { id: 'u-gone', typeId: 'user' } } },
  'user/u-gone': { data: { name: 'Gwen Gone' } },
  // Deeper than a request body may nest (WARDEN_MAX_JSON_DEPTH, 64): refused as a request body is.
  'post/p-deep': { data: { text: 'deep spam', likes: 0, author: JSON.parse(`${'['.repeat(70)}1${']'.repeat(70)}`) as unknown } },
};
const SLOW = new Set(['post/p-slow']);

describe('partial items: whole items fetched from the customer (docs/partial-items.md)', () => {
  const dataDir = freshDataDir();
  const asked: Asked[] = [];
  let endpoint: Server;
  let endpointUrl: string;
  let warden: RunningWarden;
  let key: string;
  let walledKey: string;
  let moderator: { cookie: string; csrfToken: string };
  let analyst: { cookie: string; csrfToken: string };

  beforeAll(async () => {
    endpoint = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        const json = JSON.parse(body) as Asked['json'];
        asked.push({ headers: req.headers, body, json });
        const keys = json.items.map((i) => `${i.typeId}/${i.id}`);
        const answer = () => {
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(
            JSON.stringify({
              items: json.items.filter((i) => HELD[`${i.typeId}/${i.id}`]).map((i) => ({ id: i.id, typeId: i.typeId, ...HELD[`${i.typeId}/${i.id}`] })),
              notFound: json.items.filter((i) => !HELD[`${i.typeId}/${i.id}`]),
            }),
          );
        };
        if (keys.some((k) => SLOW.has(k))) setTimeout(answer, 10_000).unref();
        else answer();
      });
    });
    await new Promise<void>((r) => endpoint.listen(0, '127.0.0.1', r));
    endpointUrl = `http://127.0.0.1:${(endpoint.address() as { port: number }).port}`;
    const env = testEnv(dataDir, { ITEMS_TOKEN: TOKEN });
    const file = (name: string, text: string) => {
      const path = join(dataDir, name);
      writeFileSync(path, text);
      return path;
    };
    // One CLI process for the set-up (test/support/warden-process.ts, runCliBatch).
    const [, , partsMade, walledMade] = await runCliBatch(env, [
      ['apply', file('parts.yaml', config('parts', `${endpointUrl}/warden/items?tenant=parts`))],
      // A private address, not in the tests' WARDEN_OUTBOUND_ALLOWLIST (127.0.0.0/8): refused as a callback there is.
      ['apply', file('walled.yaml', config('walled', 'http://10.20.30.40/warden/items'))],
      ['api-key', 'create', '--org', 'parts'],
      ['api-key', 'create', '--org', 'walled'],
      // A manager: a moderator who may also list the queue's jobs.
      consoleUserCommand('parts', 'mod@parts.example', PASSWORD, ['MODERATOR_MANAGER']),
      consoleUserCommand('parts', 'analyst@parts.example', PASSWORD, ['ANALYST']),
    ]);
    [key, walledKey] = [partsMade!.at(-1)!, walledMade!.at(-1)!];
    warden = await startWarden(env);
    moderator = await consoleLogin(warden.url, 'mod@parts.example', PASSWORD);
    analyst = await consoleLogin(warden.url, 'analyst@parts.example', PASSWORD);
  }, 90_000);

  afterAll(async () => {
    await warden?.stop();
    endpoint?.closeAllConnections();
    await new Promise((r) => endpoint?.close(r));
  });

  const submit = async (apiKey: string, ...items: unknown[]) => {
    const res = await fetch(`${warden.url}/api/v1/items/async/`, {
      method: 'POST',
      headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
      body: JSON.stringify({ items }),
    });
    expect(res.status).toBe(202);
  };
  type Condition = { path: string; outcome: string; value?: unknown; error?: string };
  type Evaluation = { version: number; rules: Array<{ id: string; outcome: string; conditions: Condition[] }> };
  const evaluation = (id: string, version: number, apiKey = key) =>
    waitFor(async () => {
      const res = await fetch(`${warden.url}/api/v1/items/post/${id}/evaluations`, { headers: { 'x-api-key': apiKey } });
      const { evaluations } = (await res.json()) as { evaluations: Evaluation[] };
      return evaluations.find((e) => e.version === version);
    }, `the evaluation of ${id} version ${version}`);
  const askedFor = (ref: string) => asked.filter((a) => a.json.items.some((i) => `${i.typeId}/${i.id}` === ref));
  const versions = (orgId: string, typeId: string, id: string) => {
    const db = new Database(join(dataDir, 'warden.db'), { readonly: true });
    try {
      return (
        db
          .prepare(
            "SELECT revision, data FROM events WHERE stream LIKE ? AND type = 'ItemSubmitted' AND json_extract(data, '$.typeId') = ? AND json_extract(data, '$.itemId') = ? ORDER BY revision",
          )
          .all(`item-${orgId}:%`, typeId, id) as Array<{
          revision: number;
          data: string;
        }>
      ).map((r) => ({ revision: r.revision, ...(JSON.parse(r.data) as { source: string; typeVersion: string | null; typeSchemaVariant: string }) }));
    } finally {
      db.close();
    }
  };
  const metric = async (outcome: string) => {
    const text = await (await fetch(`${warden.url}/metrics`)).text();
    return Number(new RegExp(`^warden_partial_item_fetches_total\\{outcome="${outcome}"\\} (\\d+)`, 'm').exec(text)?.[1] ?? 0);
  };

  it('a partial item whose sent fields decide its rules is evaluated on them, without a fetch', async () => {
    await submit(key, { id: 'p-ham', typeId: 'post', typeSchemaVariant: 'partial', data: { text: 'hello' } });
    const evaluated = await evaluation('p-ham', 0);
    expect(evaluated.rules[0]!.outcome).toBe('failed');
    expect(askedFor('post/p-ham')).toHaveLength(0);
  });

  it('a partial item whose rule needs a missing field makes exactly one signed fetch and is evaluated on the fetched data', async () => {
    await submit(key, { id: 'p-spam', typeId: 'post', typeSchemaVariant: 'partial', typeVersion: '2', data: { text: 'buy spam' } });
    const evaluated = await evaluation('p-spam', 0);
    expect(evaluated.rules[0]).toMatchObject({ id: 'unpopular-spam', outcome: 'passed' });
    expect(evaluated.rules[0]!.conditions.find((c) => c.path === 'conditions[1]')).toMatchObject({ outcome: 'passed', value: 1 });
    const requests = askedFor('post/p-spam');
    expect(requests).toHaveLength(1);
    const [request] = requests;
    expect(request!.json).toEqual({
      type: 'PARTIAL_ITEMS_REQUEST',
      version: 1,
      orgId: 'parts',
      requestId: request!.json.requestId,
      reason: 'missing-fields',
      items: [{ id: 'p-spam', typeId: 'post' }],
    });
    expect(request!.headers['authorization']).toBe(`Bearer ${TOKEN}`);
    expect(request!.headers['service-delivery-id']).toBe(request!.json.requestId);
    // Signed as callbacks are (docs/callbacks.md): Ed25519 over <t>.<Service-Delivery-Id>.<raw body>, key from the JWKS.
    const jwks = (await (await fetch(`${warden.url}/api/v1/signing_keys`, { headers: { 'x-api-key': key } })).json()) as {
      keys: Array<{ kid: string; x: string }>;
    };
    const fields = Object.fromEntries(
      String(request!.headers['service-signature'])
        .split(',')
        .map((p) => p.split(/=(.*)/s).slice(0, 2)),
    );
    const jwk = jwks.keys.find((k) => k.kid === fields['kid'])!;
    const publicKey = createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: jwk.x }, format: 'jwk' });
    expect(verify(null, Buffer.from(`${fields['t']}.${request!.json.requestId}.${request!.body}`), publicKey, Buffer.from(fields['v1']!, 'base64'))).toBe(true);
    // What was fetched is a version of the item, with its source and typeVersion; the submission's typeVersion too.
    expect(
      versions('parts', 'post', 'p-spam').map(({ revision, source, typeVersion, typeSchemaVariant }) => ({ revision, source, typeVersion, typeSchemaVariant })),
    ).toEqual([
      { revision: 0, source: 'items', typeVersion: '2', typeSchemaVariant: 'partial' },
      { revision: 1, source: 'partial-fetch', typeVersion: '2', typeSchemaVariant: 'original' },
    ]);
    expect(await metric('fetched')).toBeGreaterThanOrEqual(1);
  });

  it('a second version within the cache time is evaluated on the cached whole item, without a fetch', async () => {
    await submit(key, { id: 'p-spam', typeId: 'post', typeSchemaVariant: 'partial', data: { text: 'more spam' } });
    // Version 2: version 1 is the fetched one.
    const evaluated = await evaluation('p-spam', 2);
    expect(evaluated.rules[0]!.outcome).toBe('passed');
    expect(askedFor('post/p-spam')).toHaveLength(1);
    expect(await metric('cached')).toBeGreaterThanOrEqual(1);
    // A fetched version is data for what asked for it: it is not evaluated on its own.
    const res = await fetch(`${warden.url}/api/v1/items/post/p-spam/evaluations`, { headers: { 'x-api-key': key } });
    expect(((await res.json()) as { evaluations: Evaluation[] }).evaluations.map((e) => e.version).sort()).toEqual([0, 2]);
  });

  it('an endpoint that times out leaves the condition unknown with the reason, after a retry: never a silent false', async () => {
    await submit(key, { id: 'p-slow', typeId: 'post', typeSchemaVariant: 'partial', data: { text: 'slow spam' } });
    const evaluated = await evaluation('p-slow', 0);
    expect(evaluated.rules[0]!.outcome).toBe('unknown');
    const likes = evaluated.rules[0]!.conditions.find((c) => c.path === 'conditions[1]')!;
    expect(likes.outcome).toBe('unknown');
    expect(likes.error).toBe(
      'partial item: likes not sent; fetching the whole item failed: the partial-items endpoint did not answer within 2000 ms (2 attempts)',
    );
    expect(askedFor('post/p-slow')).toHaveLength(2);
    expect(await metric('failed')).toBeGreaterThanOrEqual(1);
  });

  it("an answer nested deeper than a request body may be is refused with the request body's limit, before anything reads it", async () => {
    await submit(key, { id: 'p-deep', typeId: 'post', typeSchemaVariant: 'partial', data: { text: 'deep spam' } });
    const evaluated = await evaluation('p-deep', 0);
    const likes = evaluated.rules[0]!.conditions.find((c) => c.path === 'conditions[1]')!;
    expect(likes.outcome).toBe('unknown');
    expect(likes.error).toMatch(/the partial-items endpoint's answer was refused: \/items\/0\/data\/author(\/0)+: nested more than 64 levels deep/);
  });

  it('an endpoint at a private address is refused by the outbound guard, as a callback is, and nothing is sent', async () => {
    await submit(walledKey, { id: 'w-1', typeId: 'post', typeSchemaVariant: 'partial', data: { text: 'walled spam' } });
    const evaluated = await evaluation('w-1', 0, walledKey);
    const likes = evaluated.rules[0]!.conditions.find((c) => c.path === 'conditions[1]')!;
    expect(likes.outcome).toBe('unknown');
    expect(likes.error).toBe(
      'partial item: likes not sent; fetching the whole item failed: the partial-items endpoint was not called: Outbound request to 10.20.30.40 refused: address not allowed',
    );
    expect(await metric('refused')).toBeGreaterThanOrEqual(1);
  });

  it("the console's 'load the full item' fetches the job's item and its related items never received; the job view shows them with typeVersion", async () => {
    // p-spam's rule sent it to review.
    const jobId = await waitFor(async () => {
      const res = await fetch(`${warden.url}/api/console/v1/jobs?queueId=default`, { headers: { cookie: moderator.cookie } });
      return ((await res.json()) as { jobs: Array<{ jobId: string; item: { id: string } }> }).jobs.find((j) => j.item.id === 'p-spam')?.jobId;
    }, 'the review job of p-spam');
    const call = (session: { cookie: string; csrfToken: string }, path: string) =>
      fetch(`${warden.url}/api/console/v1/jobs/${path}`, { method: 'POST', headers: { cookie: session.cookie, 'x-csrf-token': session.csrfToken } });

    expect((await call(analyst, `${jobId}/full-item`)).status).toBe(403);
    expect((await call(moderator, 'no-such-job/full-item')).status).toBe(404);

    const before = asked.length;
    const res = await call(moderator, `${jobId}/full-item`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      // Fetched afresh although cached: a moderator's explicit request wants the item as the customer holds it now.
      item: { id: 'p-spam', typeId: 'post', field: null, status: 'fetched', version: 3, typeVersion: '2', data: HELD['post/p-spam']!.data, reason: null },
      related: [{ id: 'u-1', typeId: 'user', field: 'author', status: 'fetched', version: 0, typeVersion: '7', data: { name: 'Una' }, reason: null }],
    });
    expect(asked.slice(before).map((a) => ({ reason: a.json.reason, items: a.json.items }))).toEqual([
      { reason: 'console', items: [{ id: 'p-spam', typeId: 'post' }] },
      { reason: 'related-item', items: [{ id: 'u-1', typeId: 'user' }] },
    ]);

    const view = (await (await fetch(`${warden.url}/api/console/v1/jobs/${jobId}`, { headers: { cookie: moderator.cookie } })).json()) as {
      item: { version: number; typeVersion: string | null; versionSource: string | null; data: Record<string, unknown> };
      relatedItems: Array<{ id: string; typeVersion: string | null; data: Record<string, unknown> }>;
      creator: { user: { id: string; typeVersion: string | null } | null } | null;
    };
    // The job view shows the whole item now: the latest version, fetched, with its typeVersion.
    expect(view.item).toMatchObject({
      version: 3,
      typeVersion: '2',
      versionSource: 'partial-fetch',
      data: { text: 'buy spam', likes: 1, author: { id: 'u-1', typeId: 'user' } },
    });
    expect(view.relatedItems).toEqual([expect.objectContaining({ id: 'u-1', typeVersion: '7', data: { name: 'Una' } })]);

    // Asked again: the related item is held now; only the item is asked for.
    const again = await call(moderator, `${jobId}/full-item`);
    expect(((await again.json()) as { related: unknown[] }).related).toEqual([]);
    expect(asked.slice(before + 2).map((a) => a.json.reason)).toEqual(['console']);
  });

  it("a GDPR erasure empties the cache of the subject's whole items: the next evaluation fetches again", async () => {
    // Fetched for its evaluation (the author comes with the whole item: the data is u-gone's), then
    // loaded in the console with its author, never received: both are in the cache.
    await submit(key, { id: 'p-gone', typeId: 'post', typeSchemaVariant: 'partial', data: { text: 'gone spam' } });
    expect((await evaluation('p-gone', 0)).rules[0]!.outcome).toBe('passed');
    await submit(key, { id: 'p-gone', typeId: 'post', typeSchemaVariant: 'partial', data: { text: 'gone spam again' } });
    expect((await evaluation('p-gone', 2)).rules[0]!.outcome).toBe('passed');
    // The second version came from the cache.
    expect(askedFor('post/p-gone')).toHaveLength(1);
    const jobId = await waitFor(async () => {
      const res = await fetch(`${warden.url}/api/console/v1/jobs?queueId=default`, { headers: { cookie: moderator.cookie } });
      return ((await res.json()) as { jobs: Array<{ jobId: string; item: { id: string } }> }).jobs.find((j) => j.item.id === 'p-gone')?.jobId;
    }, 'the review job of p-gone');
    const loaded = await fetch(`${warden.url}/api/console/v1/jobs/${jobId}/full-item`, {
      method: 'POST',
      headers: { cookie: moderator.cookie, 'x-csrf-token': moderator.csrfToken },
    });
    expect(((await loaded.json()) as { related: Array<{ id: string; status: string }> }).related).toEqual([
      expect.objectContaining({ id: 'u-gone', status: 'fetched' }),
    ]);
    expect(askedFor('post/p-gone')).toHaveLength(2);

    const erased = await fetch(`${warden.url}/api/v1/gdpr/delete`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      body: JSON.stringify({ id: 'u-gone', typeId: 'user' }),
    });
    expect(erased.status).toBe(202);
    const { requestId } = (await erased.json()) as { requestId: string };
    await waitFor(async () => {
      const res = await fetch(`${warden.url}/api/v1/gdpr/delete/${requestId}`, { headers: { 'x-api-key': key } });
      return ((await res.json()) as { state: string }).state === 'COMPLETED';
    }, 'the erasure of u-gone to complete');
    // Each thread that holds a cache follows the log for erasures and logs what it dropped: the
    // console's cache (the main thread) held the post and its author, the evaluations' cache (the
    // background thread, or the same one) the post. Which thread logs first is not fixed: the
    // console's line is waited for; the evaluation below shows that the other cache was emptied too.
    const dropped = await waitFor(
      () =>
        warden
          .logs()
          .split('\n')
          .filter((l) => l.includes('whole items of an erased subject dropped from the cache'))
          .map((l) => JSON.parse(l) as { orgId: string; dropped: number })
          .find((l) => l.dropped === 2),
      'the cache emptied of u-gone',
    );
    expect(dropped).toMatchObject({ orgId: 'parts', dropped: 2 });

    // The same item again, within the cache time: asked for afresh, not answered from memory.
    await submit(key, { id: 'p-gone', typeId: 'post', typeSchemaVariant: 'partial', data: { text: 'gone spam once more' } });
    const after = await evaluation('p-gone', 4);
    expect(after.rules[0]!.outcome).toBe('passed');
    expect(askedFor('post/p-gone').map((a) => a.json.reason)).toEqual(['missing-fields', 'console', 'missing-fields']);
  });

  it('a backtest of a rule that needs a missing field reports the partial items unknown: it neither calls the endpoint nor records a version', async () => {
    // A stored partial item whose sent fields leave the candidate undecided (its live rule needed no fetch).
    await submit(key, { id: 'p-backtest', typeId: 'post', typeSchemaVariant: 'partial', data: { text: 'no likes sent' } });
    await evaluation('p-backtest', 0);
    const env = testEnv(dataDir, { ITEMS_TOKEN: TOKEN });
    const candidate = join(dataDir, 'candidate.yaml');
    writeFileSync(
      candidate,
      `id: candidate
name: Candidate
status: LIVE
itemTypeIds: [post]
actionIds: [enqueue-to-mrt]
conditionSet: { conjunction: AND, conditions: [{ input: { field: likes }, comparator: LT, value: 100 }] }
`,
    );
    const requests = asked.length;
    const events = eventCount(dataDir);
    const backtest = await runCli(['backtest', '--org', 'parts', '--rule-file', candidate], env);
    expect(backtest.code, backtest.stderr).toBe(0);
    expect(backtest.stdout).toMatch(/Backtest \(nothing recorded or published\) of rule candidate: \d+ item\(s\) scanned, \d+ matched, [1-9]\d* unknown/);
    expect(asked.length).toBe(requests);
    expect(eventCount(dataDir)).toBe(events);
  });
});

describe('partial items: an endpoint whose host name resolves to a private address (docs/partial-items.md, "The outbound guard")', () => {
  const dataDir = freshDataDir();
  let received = 0;
  let endpoint: Server;
  let warden: RunningWarden;
  let key: string;

  beforeAll(async () => {
    // A real endpoint that would answer: reached, it would count the request.
    endpoint = createServer((req, res) => {
      received++;
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"items":[],"notFound":[]}');
    });
    await new Promise<void>((r) => endpoint.listen(0, '127.0.0.1', r));
    // A deployment as shipped: no WARDEN_OUTBOUND_ALLOWLIST (the other suites allow loopback to reach their receivers).
    const { WARDEN_OUTBOUND_ALLOWLIST: _allowlist, ...env } = testEnv(dataDir, { ITEMS_TOKEN: TOKEN });
    const path = join(dataDir, 'named.yaml');
    // `localhost` is a host name: it is resolved, and the address it resolves to (loopback) is what is refused.
    writeFileSync(path, config('named', `http://localhost:${(endpoint.address() as { port: number }).port}/warden/items`));
    ({ warden, key } = await startConfigured(env, path, 'named'));
  }, 90_000);

  afterAll(async () => {
    await warden?.stop();
    await new Promise((r) => endpoint?.close(r));
  });

  it('is refused before anything is sent, as a callback is: the condition stays unknown with the reason', async () => {
    const res = await fetch(`${warden.url}/api/v1/items/async/`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      body: JSON.stringify({ items: [{ id: 'n-1', typeId: 'post', typeSchemaVariant: 'partial', data: { text: 'named spam' } }] }),
    });
    expect(res.status).toBe(202);
    const evaluated = await waitFor(async () => {
      const list = await fetch(`${warden.url}/api/v1/items/post/n-1/evaluations`, { headers: { 'x-api-key': key } });
      return (
        (await list.json()) as {
          evaluations: Array<{ rules: Array<{ outcome: string; conditions: Array<{ path: string; outcome: string; error?: string }> }> }>;
        }
      ).evaluations[0];
    }, 'the evaluation of n-1');
    expect(evaluated.rules[0]!.outcome).toBe('unknown');
    expect(evaluated.rules[0]!.conditions.find((c) => c.path === 'conditions[1]')).toMatchObject({
      outcome: 'unknown',
      error:
        'partial item: likes not sent; fetching the whole item failed: the partial-items endpoint was not called: Outbound request to localhost refused: address not allowed',
    });
    expect(received).toBe(0);
    const metrics = await (await fetch(`${warden.url}/metrics`)).text();
    expect(metrics).toMatch(/^warden_partial_item_requests_total\{outcome="refused"\} [1-9]/m);
  });
});
