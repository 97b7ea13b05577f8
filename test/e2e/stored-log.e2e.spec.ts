import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readStoredLog, restoreStoredLog, STORED_LOG_SECRET_KEY } from '../fixtures/stored-log/stored-log.js';
import { waitFor } from '../support/wait-for.js';
import { freshDataDir, type RunningWarden, startWarden, testEnv } from '../support/warden-process.js';

/**
 * The log an earlier release stored (test/fixtures/stored-log/README.md) must keep working: every
 * read path folds, projects and reacts to it, so a change to an event's shape that the stored
 * events no longer satisfy fails here until an upcaster brings them to the new shape. (The one
 * upcaster so far, MediaHashed v1 -> v2, has its own stored-event spec: this log has no images.)
 */
describe.each(['v1'])('a log stored by an earlier release (%s)', (version) => {
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
    const p1 = await evaluations('p-1');
    expect(p1.map((e) => e.version)).toEqual([1, 0]);
    const [p2] = await evaluations('p-2');
    expect(p2!.rules.find((r) => r.id === 'remove-scams')?.outcome).toBe('passed');
    expect(p2!.actions.map((a) => a.id)).toEqual(['remove']);
  });

  it('lists its delivered callback and publishes the signing key it was signed with', async () => {
    const deliveries = (await get('/api/v1/callbacks/deliveries')) as { deliveries: Array<{ status: string; actionId: string }> };
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
    const latest = await waitFor(
      async () => (await evaluations('p-1')).find((e) => e.version === 2),
      { what: 'the evaluation of p-1 version 2', intervalMs: 100 },
    );
    // The author's earlier submissions, all in the stored log, count towards the background rule.
    expect(latest.rules.find((r) => r.id === 'watch-busy-authors')?.outcome).toBe('passed');
  });
});
