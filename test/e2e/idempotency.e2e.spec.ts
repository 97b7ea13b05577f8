import { createHash, randomUUID } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectErrorBody } from '../support/error-body.js';
import { type Receiver, startReceiver } from '../support/http-receiver.js';
import { waitFor } from '../support/wait-for.js';
import { createOrgWithKey, freshDataDir, type RunningWarden, startWarden, testEnv, startConfigured } from '../support/warden-process.js';

const CONFIG = join(import.meta.dirname, '../fixtures/callbacks-org.yaml');

/** Reads the embedded data file the way an operator would, while the servers run. */
function dataFile(dataDir: string) {
  const open = (readonly: boolean) => new Database(join(dataDir, 'warden.db'), { readonly });
  const query = <T>(sql: string, ...params: unknown[]): T[] => {
    const db = open(true);
    try {
      return db.prepare(sql).all(...params) as T[];
    } finally {
      db.close();
    }
  };
  const ofItem = (type: string, itemPath: string, itemId: string) =>
    query<{ data: string }>(`SELECT data FROM events WHERE type = ? AND json_extract(data, ?) = ? ORDER BY position`, type, itemPath, itemId).map(
      (r) => JSON.parse(r.data) as Record<string, unknown>,
    );
  return {
    versions: (itemId: string) => ofItem('ItemSubmitted', '$.itemId', itemId).length,
    evaluations: (itemId: string) => ofItem('ItemEvaluated', '$.item.id', itemId).length,
    /** The delivery ids the rules engine published for the item's actions, one per publication. */
    publications: (itemId: string) => ofItem('ActionCallbackRequested', '$.item.id', itemId).map((d) => d['deliveryId'] as string),
    /** Delivery streams recorded for the item (one CallbackDeliveryRequested each). */
    deliveries: (itemId: string) => ofItem('CallbackDeliveryRequested', '$.item.id', itemId).map((d) => d['deliveryId'] as string),
    /** Stands for a process that reserved the key and then died (or is still running). */
    reopen(scope: string, key: string, leaseUntil: number): number {
      // Records are kept under a digest of the key.
      const stored = createHash('sha256').update(key).digest('base64url');
      const db = open(false);
      try {
        return db
          .prepare("UPDATE idempotency_keys SET status = NULL, body = NULL, holder = 'crashed-request', lease_until = ? WHERE scope = ? AND key = ?")
          .run(leaseUntil, scope, stored).changes;
      } finally {
        db.close();
      }
    },
  };
}

const post = (id: string, text: string) => ({ id, typeId: 'post', data: { text, author: { id: 'u1', typeId: 'user' } } });

describe('Idempotency-Key and content-derived delivery ids, end to end', () => {
  const dataDir = freshDataDir();
  const log = dataFile(dataDir);
  let receiver: Receiver;
  let env: NodeJS.ProcessEnv;
  let warden: RunningWarden;
  let key: string;

  beforeAll(async () => {
    receiver = await startReceiver();
    env = testEnv(dataDir, { RECEIVER_URL: receiver.url, DOWN_URL: 'http://127.0.0.1:9', HOOK_TOKEN: 'hook-token', WARDEN_RATE_LIMIT_PER_SECOND: '0' });
    ({ warden, key } = await startConfigured(env, CONFIG, 'hooks'));
  }, 60_000);
  afterAll(async () => {
    await warden?.stop();
    await receiver?.close();
  });

  const send = async (path: string, body: string, headers: Record<string, string> = {}, server = warden, apiKey = key) => {
    const res = await fetch(`${server.url}${path}`, {
      method: 'POST',
      headers: { 'x-api-key': apiKey, 'content-type': 'application/json', ...headers },
      body,
    });
    return res;
  };
  const submit = (items: unknown[], headers: Record<string, string> = {}, server = warden) =>
    send('/api/v1/items/async/', JSON.stringify({ items }), headers, server);
  const answer = async (res: Response) => ({
    status: res.status,
    replayed: res.headers.get('idempotent-replayed'),
    requestId: res.headers.get('x-request-id'),
    body: (await res.json()) as Record<string, unknown>,
  });
  /** Callback requests that reached the receiver for an item's `remove` action. */
  const arrivals = (itemId: string) =>
    receiver.requests.filter((r) => r.url.startsWith('/hooks/remove') && (JSON.parse(r.body) as { item: { id: string } }).item.id === itemId);
  /**
   * Every publication before a new one has been through the delivery reactor once this new one
   * reached the receiver: the reactor handles the log in order.
   */
  const barrier = async () => {
    const id = `barrier-${randomUUID()}`;
    expect((await submit([post(id, 'a scam to wait for')])).status).toBe(202);
    await waitFor(() => arrivals(id).length > 0, `the callback of ${id}`);
  };

  it('answers the same batch sent twice with one key once: the second gets the first response, and one version, evaluation and callback exist', async () => {
    const idem = `batch-${randomUUID()}`;
    const items = [post('k-1', 'this is a scam'), post('k-2', 'another scam')];
    const first = await answer(await submit(items, { 'idempotency-key': idem }));
    expect(first).toMatchObject({ status: 202, replayed: null, body: { accepted: 2, requestId: first.requestId } });
    // The same body, written with other key order and spacing, is the same request.
    const reordered = JSON.stringify({ items: items.map(({ data, typeId, id }) => ({ typeId, data, id })) }, null, 2);
    const second = await answer(await send('/api/v1/items/async/', reordered, { 'idempotency-key': idem }));
    expect(second.status).toBe(202);
    expect(second.replayed).toBe('true');
    // The first response, byte for byte: its requestId names the request that did the work.
    expect(second.body).toEqual(first.body);
    expect(second.requestId).not.toBe(first.requestId);

    for (const id of ['k-1', 'k-2']) await waitFor(() => arrivals(id).length > 0, `the callback of ${id}`);
    await barrier();
    for (const id of ['k-1', 'k-2']) {
      expect(log.versions(id)).toBe(1);
      expect(log.evaluations(id)).toBe(1);
      expect(log.publications(id)).toHaveLength(1);
      expect(log.deliveries(id)).toHaveLength(1);
      expect(arrivals(id)).toHaveLength(1);
    }
  }, 60_000);

  it('refuses the key with another body or on another endpoint (422), and records nothing of that request', async () => {
    const idem = `reused-${randomUUID()}`;
    expect((await submit([post('r-1', 'hello')], { 'idempotency-key': idem })).status).toBe(202);
    await expectErrorBody(await submit([post('r-2', 'hello')], { 'idempotency-key': idem }), 422, '/errors/idempotency-key-reused', '/headers/idempotency-key');
    const legacy = JSON.stringify({ contentId: 'r-3', contentType: 'post', content: { text: 'hello' } });
    await expectErrorBody(
      await send('/api/v1/content/', legacy, { 'idempotency-key': idem }),
      422,
      '/errors/idempotency-key-reused',
      '/headers/idempotency-key',
    );
    expect(log.versions('r-2')).toBe(0);
    expect(log.versions('r-3')).toBe(0);
    expect(log.versions('r-1')).toBe(1);
  }, 30_000);

  it('scopes keys by organization and keeps no failed response: a 400 can be corrected and retried with the same key', async () => {
    const idem = `scoped-${randomUUID()}`;
    expect((await submit([post('s-1', 'hello')], { 'idempotency-key': idem })).status).toBe(202);
    // Another organization (no item types yet) with the same key: its own request, a plain 400.
    const otherKey = await createOrgWithKey(env, `other-${randomUUID().slice(0, 8)}`);
    const other = await send('/api/v1/items/async/', JSON.stringify({ items: [post('s-1', 'hello')] }), { 'idempotency-key': idem }, warden, otherKey);
    await expectErrorBody(other, 400, '/errors/invalid-user-input');
    // In this organization: an invalid request is answered, not stored; the corrected one runs.
    const retryKey = `fix-${randomUUID()}`;
    await expectErrorBody(
      await submit([{ id: 's-2', typeId: 'post', data: {} }], { 'idempotency-key': retryKey }),
      400,
      '/errors/invalid-user-input',
      '/items/0/data/text',
    );
    const fixed = await answer(await submit([post('s-2', 'hello')], { 'idempotency-key': retryKey }));
    expect(fixed).toMatchObject({ status: 202, replayed: null });
    expect(log.versions('s-2')).toBe(1);
  }, 60_000);

  it.each([
    ['empty', ''],
    ['too long', 'k'.repeat(256)],
    ['not ASCII', 'caf\u00e9'],
    ['a control character', 'a\tb'],
  ])('refuses an Idempotency-Key that is %s with a 400 pointing at the header, and records nothing', async (_what, bad) => {
    const res = await submit([post('bad-key', 'hello')], { 'idempotency-key': bad });
    await expectErrorBody(res, 400, '/errors/invalid-user-input', '/headers/idempotency-key');
    expect(log.versions('bad-key')).toBe(0);
  });

  /**
   * Every customer POST that takes a key (all but the appeal, which is recorded once per appealId:
   * docs/api.md), each with two different valid bodies. GDPR deletion once ignored the header.
   */
  const report = (itemId: string) => ({
    reporter: { kind: 'user', id: 'u2', typeId: 'user' },
    reportedAt: '2026-03-01T12:00:00Z',
    reportedItem: post(itemId, 'please look at this'),
  });
  it.each([
    ['/api/v1/items/async/', { items: [post('e-1', 'hello')] }, { items: [post('e-2', 'hello')] }],
    [
      '/api/v1/content/',
      { contentId: 'e-3', contentType: 'post', content: { text: 'hello' } },
      { contentId: 'e-4', contentType: 'post', content: { text: 'hello' } },
    ],
    ['/api/v1/report', report('e-5'), report('e-6')],
    ['/api/v1/actions', { actionId: 'remove', itemId: 'e-7', itemTypeId: 'post' }, { actionId: 'remove', itemId: 'e-8', itemTypeId: 'post' }],
    ['/api/v1/gdpr/delete', { id: 'e-gone-1', typeId: 'user' }, { id: 'e-gone-2', typeId: 'user' }],
  ])('POST %s takes an Idempotency-Key: a malformed one is a 400, a repeat is replayed, another body with it a 422', async (path, body, other) => {
    await expectErrorBody(
      await send(path, JSON.stringify(body), { 'idempotency-key': 'bad key \u00fc' }),
      400,
      '/errors/invalid-user-input',
      '/headers/idempotency-key',
    );
    const idem = `every-post-${randomUUID()}`;
    const first = await answer(await send(path, JSON.stringify(body), { 'idempotency-key': idem }));
    expect(first.status).toBeGreaterThanOrEqual(200);
    expect(first.status).toBeLessThan(300);
    expect(await answer(await send(path, JSON.stringify(body), { 'idempotency-key': idem }))).toMatchObject({
      status: first.status,
      replayed: 'true',
      body: first.body,
    });
    await expectErrorBody(
      await send(path, JSON.stringify(other), { 'idempotency-key': idem }),
      422,
      '/errors/idempotency-key-reused',
      '/headers/idempotency-key',
    );
  });

  it('answers 409 with Retry-After while the first request holds the key, and lets a retry take over once its lease ran out', async () => {
    const idem = `crash-${randomUUID()}`;
    const items = [post('c-1', 'hello')];
    const first = await answer(await submit(items, { 'idempotency-key': idem }));
    // The record as a process leaves it that reserved the key and died before storing its answer.
    expect(log.reopen('hooks', idem, Date.now() + 3_600_000)).toBe(1);
    const busy = await submit(items, { 'idempotency-key': idem });
    expect(busy.headers.get('retry-after')).toBe('1');
    await expectErrorBody(busy, 409, '/errors/idempotency-key-in-progress', '/headers/idempotency-key');
    expect(log.reopen('hooks', idem, Date.now() - 1)).toBe(1);
    const retried = await answer(await submit(items, { 'idempotency-key': idem }));
    expect(retried).toMatchObject({ status: 202, replayed: null });
    expect(retried.body['requestId']).not.toBe(first.body['requestId']);
    expect(log.versions('c-1')).toBe(2);
    expect((await answer(await submit(items, { 'idempotency-key': idem }))).body).toEqual(retried.body);
  }, 30_000);

  it('sends one callback, with one delivery id, for a batch sent twice without a key: two versions, one delivery per item', async () => {
    const items = [post('n-1', 'scam number one'), post('n-2', 'scam number two')];
    expect((await submit(items)).status).toBe(202);
    expect((await submit(items)).status).toBe(202);
    for (const id of ['n-1', 'n-2']) await waitFor(() => log.publications(id).length === 2, `both evaluations of ${id}`);
    await barrier();
    for (const id of ['n-1', 'n-2']) {
      expect(log.versions(id)).toBe(2);
      expect(log.evaluations(id)).toBe(2);
      const [deliveryId] = log.publications(id);
      expect(new Set(log.publications(id))).toEqual(new Set([deliveryId]));
      expect(log.deliveries(id)).toEqual([deliveryId]);
      expect(arrivals(id).map((r) => r.headers['service-delivery-id'])).toEqual([deliveryId]);
    }
    // Changed content is acted on again, under a delivery id of its own.
    expect((await submit([post('n-1', 'scam number one, edited')])).status).toBe(202);
    await waitFor(() => arrivals('n-1').length === 2, 'the callback of the edited n-1');
    expect(new Set(arrivals('n-1').map((r) => r.headers['service-delivery-id'])).size).toBe(2);
  }, 60_000);

  it('acts again on content that comes back after an edit (a scam, edited away, then put back)', async () => {
    expect((await submit([post('b-1', 'a scam')])).status).toBe(202);
    await waitFor(() => arrivals('b-1').length === 1, 'the callback of the first b-1');
    expect((await submit([post('b-1', 'edited, nothing to see')])).status).toBe(202);
    expect((await submit([post('b-1', 'a scam')])).status).toBe(202);
    await waitFor(() => arrivals('b-1').length === 2, 'the callback of the scam put back');
    expect(new Set(arrivals('b-1').map((r) => r.headers['service-delivery-id'])).size).toBe(2);
    // A retry of that latest content still acts once.
    expect((await submit([post('b-1', 'a scam')])).status).toBe(202);
    await waitFor(() => log.evaluations('b-1') === 4, 'the evaluation of the retry');
    await barrier();
    expect(arrivals('b-1')).toHaveLength(2);
  }, 60_000);

  it('keeps keys across a restart and shares them with a second server process on the same data directory', async () => {
    const idem = `durable-${randomUUID()}`;
    const items = [post('d-1', 'hello')];
    const first = await answer(await submit(items, { 'idempotency-key': idem }));
    expect(first.status).toBe(202);

    expect(await warden.stop()).toBe(0);
    warden = await startWarden(env);
    const afterRestart = await answer(await submit(items, { 'idempotency-key': idem }));
    expect(afterRestart).toMatchObject({ status: 202, replayed: 'true', body: first.body });

    const api = await startWarden({ ...env, WARDEN_ROLE: 'api' });
    try {
      const elsewhere = await answer(await submit(items, { 'idempotency-key': idem }, api));
      expect(elsewhere).toMatchObject({ status: 202, replayed: 'true', body: first.body });
      // And the other way round: a key first used on the second process.
      const idem2 = `shared-${randomUUID()}`;
      const onApi = await answer(await submit([post('d-2', 'hello')], { 'idempotency-key': idem2 }, api));
      const onFirst = await answer(await submit([post('d-2', 'hello')], { 'idempotency-key': idem2 }));
      expect(onFirst).toMatchObject({ status: 202, replayed: 'true', body: onApi.body });
      await expectErrorBody(await submit([post('d-3', 'hello')], { 'idempotency-key': idem2 }), 422, '/errors/idempotency-key-reused');
    } finally {
      await api.stop();
    }
    expect(log.versions('d-1')).toBe(1);
    expect(log.versions('d-2')).toBe(1);
  }, 90_000);
});

describe("a rule's daily action cap, for identical content re-submitted", () => {
  const dataDir = freshDataDir();
  let receiver: Receiver;
  let warden: RunningWarden;
  let key: string;

  beforeAll(async () => {
    receiver = await startReceiver();
    const env = testEnv(dataDir, { RECEIVER_URL: receiver.url, DOWN_URL: 'http://127.0.0.1:9', HOOK_TOKEN: 'hook-token' });
    // The scam rule may act on one item a day.
    const capped = readFileSync(CONFIG, 'utf8').replace('    actionIds: [remove]\n', '    actionIds: [remove]\n    maxDailyActions: 1\n');
    const file = join(freshDataDir(), 'capped.yaml');
    writeFileSync(file, capped);
    ({ warden, key } = await startConfigured(env, file, 'hooks'));
  }, 60_000);
  afterAll(async () => {
    await warden?.stop();
    await receiver?.close();
  });

  const submit = async (...items: unknown[]) => {
    const res = await fetch(`${warden.url}/api/v1/items/async/`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      body: JSON.stringify({ items }),
    });
    expect(res.status).toBe(202);
  };
  /** Whether the scam rule was capped in the item's evaluation of `version`. */
  const capped = (id: string, version: number) =>
    waitFor(async () => {
      const res = await fetch(`${warden.url}/api/v1/items/post/${id}/evaluations`, { headers: { 'x-api-key': key } });
      const { evaluations } = (await res.json()) as { evaluations: Array<{ version: number; rules: Array<{ id: string; capped: boolean }> }> };
      const rule = evaluations.find((e) => e.version === version)?.rules.find((r) => r.id === 'remove-scams');
      return rule && { capped: rule.capped };
    }, `the evaluation of ${id} version ${version}`);

  it('takes no second slot: the repeat is not capped, and the next item is', async () => {
    await submit(post('cap-a', 'a scam'));
    expect(await capped('cap-a', 0)).toEqual({ capped: false });
    await submit(post('cap-a', 'a scam'));
    expect(await capped('cap-a', 1)).toEqual({ capped: false });
    await submit(post('cap-b', 'another scam'));
    expect(await capped('cap-b', 0)).toEqual({ capped: true });
  }, 60_000);
});
