import Database from 'better-sqlite3';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventCount } from '../support/config-files.js';
import { type Receiver, startReceiver } from '../support/http-receiver.js';
import { readStoredLog, restoreStoredLog, STORED_LOG_SECRET_KEY } from '../fixtures/stored-log/stored-log.js';
import { waitFor } from '../support/wait-for.js';
import { freshDataDir, type RunningWarden, startWarden, testEnv } from '../support/warden-process.js';

/**
 * The log an earlier release stored (test/fixtures/stored-log/README.md) must keep working: every
 * read path folds, projects and reacts to it, so a change to an event's shape that the stored
 * events no longer satisfy fails here until an upcaster brings them to the new shape. Each
 * upcaster also has its own spec; the v1 log goes through those of ActionDefined,
 * AppealSettingsChanged and CallbackDeliveryRequested here, v2 holds those events in their
 * sealed-URL shape (neither log has an image, a redelivery or a daily action limit, so the
 * MediaHashed, CallbackRedeliveryRequested and RuleDailyActionCounted upcasters have only
 * their own specs).
 */
describe.each(['v1', 'v2'])('a log stored by an earlier release (%s)', (version) => {
  const log = readStoredLog(version);
  const dataDir = freshDataDir();
  let warden: RunningWarden;

  const get = async (path: string) => {
    const res = await fetch(warden.url + path, { headers: { 'x-api-key': log.apiKey } });
    expect(res.status, path).toBe(200);
    return res.json() as Promise<Record<string, unknown>>;
  };
  type Evaluation = { version: number; rules: Array<{ id: string; outcome: string }>; actions: Array<{ id: string }> };
  const evaluations = async (id: string) => (await get(`/api/v1/items/post/${id}/evaluations`))['evaluations'] as Evaluation[];

  beforeAll(async () => {
    await restoreStoredLog(log, dataDir);
    warden = await startWarden(testEnv(dataDir, { WARDEN_SECRET_KEY: STORED_LOG_SECRET_KEY, RECEIVER_URL: 'http://127.0.0.1:9' }));
  });
  afterAll(async () => {
    await warden?.stop();
  });

  it('authenticates with its API key and lists its catalog', async () => {
    const policies = (await get('/api/v1/policies/')) as unknown as Array<{ id: string }> | { policies: Array<{ id: string }> };
    const list = Array.isArray(policies) ? policies : policies.policies;
    expect(list.map((p) => p.id).sort()).toEqual(['scam', 'spam']);
  });

  it('explains its recorded evaluations, versions in order', async () => {
    // The projections start after the server listens (docs/operations.md, "Start-up"): the
    // restored log is projected while the test reads.
    const p1 = await waitFor(async () => {
      const found = await evaluations('p-1');
      return found.length >= 2 && found;
    }, "p-1's two recorded evaluations projected");
    expect(p1.map((e) => e.version)).toEqual([1, 0]);
    const [p2] = await evaluations('p-2');
    expect(p2!.rules.find((r) => r.id === 'remove-scams')?.outcome).toBe('passed');
    expect(p2!.actions.map((a) => a.id)).toEqual(['remove']);
  });

  it('lists its delivered callback and publishes the signing key it was signed with', async () => {
    type Deliveries = { deliveries: Array<{ status: string; actionId: string }> };
    const deliveries = await waitFor(async () => {
      const found = (await get('/api/v1/callbacks/deliveries')) as Deliveries;
      return found.deliveries.length > 0 && found;
    }, 'the stored delivery projected');
    expect(deliveries.deliveries.map((d) => [d.actionId, d.status])).toEqual([['remove', 'delivered']]);
    const recorded = log.events.find((e) => e.type === 'SigningKeyCreated')!;
    const { keys } = (await get('/api/v1/signing_keys')) as { keys: Array<{ kid: string }> };
    expect(keys.map((k) => k.kid)).toContain((JSON.parse(recorded.data) as { kid: string }).kid);
  });

  it('goes on from it: a new version of a stored item is evaluated with the stored history', async () => {
    const res = await fetch(warden.url + '/api/v1/items/async/', {
      method: 'POST',
      headers: { 'x-api-key': log.apiKey, 'content-type': 'application/json' },
      body: JSON.stringify({ items: [{ id: 'p-1', typeId: 'post', data: { text: 'hello once more', author: { id: 'u-1', typeId: 'user' } } }] }),
    });
    expect(res.status).toBe(202);
    expect(((await res.json()) as { accepted: number }).accepted).toBe(1);
    // Polled gently: the API's rate limit counts these reads.
    const latest = await waitFor(async () => (await evaluations('p-1')).find((e) => e.version === 2), {
      what: 'the evaluation of p-1 version 2',
      intervalMs: 100,
    });
    // The author's earlier submissions, all in the stored log, count towards the background rule.
    expect(latest.rules.find((r) => r.id === 'watch-busy-authors')?.outcome).toBe('passed');
  });
});

/**
 * Releases up to 0.1.0 stored a callback URL in plaintext in ActionDefined, query string and all.
 * Read today, it is upcast to a sealed URL: the dispatcher must open it and call the whole URL,
 * while the delivery it records keeps no query string. The recorded URL points at the recorder's
 * long-gone receiver, so the test points it at its own, with a token in the query string, before
 * restoring: the event keeps its v1 shape, plaintext URL included.
 */
describe('a callback URL stored in plaintext by release 0.1.0 (v1)', () => {
  const recorded = readStoredLog('v1');
  const dataDir = freshDataDir();
  let receiver: Receiver;
  let warden: RunningWarden;
  let target: string;

  beforeAll(async () => {
    receiver = await startReceiver();
    target = `${receiver.url}/hooks/remove?token=golden-query-secret&v=1`;
    const events = recorded.events.map((e) =>
      e.type === 'ActionDefined' ? { ...e, data: e.data.replace(/"url":"http:\/\/127\.0\.0\.1:\d+\/hooks\/remove"/, `"url":"${target}"`) } : e,
    );
    expect(events.find((e) => e.type === 'ActionDefined')!.data).toContain(target);
    await restoreStoredLog({ ...recorded, events }, dataDir);
    warden = await startWarden(testEnv(dataDir, { WARDEN_SECRET_KEY: STORED_LOG_SECRET_KEY }));
  });
  afterAll(async () => {
    await warden?.stop();
    await receiver?.close();
  });

  it('calls the whole URL for a new item, and records the delivery without its query string', async () => {
    const before = eventCount(dataDir, "type = 'CallbackDeliveryRequested'");
    const res = await fetch(warden.url + '/api/v1/items/async/', {
      method: 'POST',
      headers: { 'x-api-key': recorded.apiKey, 'content-type': 'application/json' },
      body: JSON.stringify({ items: [{ id: 'p-3', typeId: 'post', data: { text: 'another scam', author: { id: 'u-1', typeId: 'user' } } }] }),
    });
    expect(res.status).toBe(202);
    const call = await waitFor(() => receiver.requests.find((r) => r.url.startsWith('/hooks/remove')), 'the callback of p-3');
    expect(call.url).toBe('/hooks/remove?token=golden-query-secret&v=1');
    expect(call.headers['authorization']).toBe('Bearer golden-token');
    expect((JSON.parse(call.body) as { item: { id: string } }).item.id).toBe('p-3');

    expect(eventCount(dataDir, "type = 'CallbackDeliveryRequested'")).toBe(before + 1);
    const db = new Database(join(dataDir, 'warden.db'), { readonly: true });
    try {
      const rows = db.prepare("SELECT data FROM events WHERE type = 'CallbackDeliveryRequested' ORDER BY position DESC LIMIT 1").all() as Array<{
        data: string;
      }>;
      const stored = rows[0]!.data;
      expect(stored).not.toContain('golden-query-secret');
      expect(stored).not.toContain('?token');
      const { destination } = JSON.parse(stored) as { destination: { url: string; sealedUrl?: unknown } };
      // Shown without its query string (marked as cut), called from the sealed whole.
      expect(destination.url).toBe(`${receiver.url}/hooks/remove?…`);
      expect(typeof destination.sealedUrl).toBe('object');
    } finally {
      db.close();
    }
  });
});
