import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { eventCount, spamRemovalOrg, writeConfig } from '../support/config-files.js';
import { type Receiver, startReceiver } from '../support/http-receiver.js';
import { waitFor } from '../support/wait-for.js';
import { consoleLogin, freshDataDir, type RunningWarden, runCliBatch, startWarden, testEnv } from '../support/warden-process.js';

// The read-model thread (docs/architecture.md, "The read-model thread"): the read models nothing on
// the write path waits for are projected on a worker thread of the process, and what a request
// reads of them is caught up there first.

const config = (receiverUrl: string) => spamRemovalOrg({ id: 'rmt', name: 'Read-model thread' }, receiverUrl);

const THREAD_STARTED = '"msg":"read-model thread started"';
const ADMIN = 'admin@rmt.example';
const PASSWORD = 'a long passphrase of hers';

/** A projection's `warden_projection_position` in a /metrics text (0 when absent). */
function positionIn(metrics: string, projection: string): number {
  const line = metrics.split('\n').find((l) => l.startsWith(`warden_projection_position{projection="${projection}"}`));
  return line ? Number(line.split(' ').at(-1)) : 0;
}

/** A count in the read models' file (read-models.db). */
function countReadModels(dataDir: string, sql: string): number {
  const db = new Database(join(dataDir, 'read-models.db'), { readonly: true });
  try {
    return (db.prepare(sql).get() as { n: number }).n;
  } finally {
    db.close();
  }
}

describe('the read-model thread', () => {
  let warden: RunningWarden | undefined;
  let receiver: Receiver | undefined;
  afterEach(async () => {
    await warden?.stop();
    await receiver?.close();
    warden = receiver = undefined;
  });

  /** A one-process server over a configured organization; its API key. */
  async function serve(extra: Record<string, string>) {
    const dataDir = freshDataDir();
    receiver = await startReceiver();
    const env = testEnv(dataDir, { WARDEN_RATE_LIMIT_PER_SECOND: '100000', WARDEN_RATE_LIMIT_BURST: '1000000', ...extra });
    const [, keyMade] = await runCliBatch(env, [
      ['apply', writeConfig(config(receiver.url))],
      ['api-key', 'create', '--org', 'rmt'],
      { args: ['user', 'create', '--org', 'rmt', '--email', ADMIN, '--role', 'ADMIN', '--with-password'], input: `${PASSWORD}\n` },
    ]);
    const key = keyMade!.at(-1)!;
    warden = await startWarden(env);
    const server = warden;
    const post = async (ids: string[], text: (id: string) => string) => {
      for (let i = 0; i < ids.length; i += 500) {
        const items = ids.slice(i, i + 500).map((id) => ({ id, typeId: 'post', data: { text: text(id), author: { id: `author-${id}`, typeId: 'user' } } }));
        const res = await fetch(server.url + '/api/v1/items/async', {
          method: 'POST',
          headers: { 'x-api-key': key, 'content-type': 'application/json' },
          body: JSON.stringify({ items }),
        });
        expect(res.status).toBe(202);
      }
    };
    const delivered = () => eventCount(dataDir, "type = 'CallbackDelivered'");
    /** One read of the deliveries' read model through the API: their statuses by delivery count. */
    const listed = async () => {
      const res = await fetch(server.url + '/api/v1/callbacks/deliveries?limit=100', { headers: { 'x-api-key': key } });
      expect(res.status).toBe(200);
      const { deliveries } = (await res.json()) as { deliveries: Array<{ status: string }> };
      return deliveries.map((d) => d.status);
    };
    /**
     * The rule's actions today, as the console's rule list shows them: read from the rule-activity
     * read model (a projection of the thread) after a catch-up of it.
     */
    const actionsToday = async () => {
      const { cookie } = await consoleLogin(server.url, ADMIN, PASSWORD);
      const res = await fetch(server.url + '/api/console/v1/rules', { headers: { cookie } });
      expect(res.status).toBe(200);
      const { rules } = (await res.json()) as { rules: Array<{ id: string; actionsToday: number }> };
      return rules.find((r) => r.id === 'spam-words')?.actionsToday;
    };
    const evaluated = () => eventCount(dataDir, "type = 'ItemEvaluated'");
    return { dataDir, server, post, delivered, listed, actionsToday, evaluated };
  }

  const ids = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix}-${i}`);

  it('on: projects on the thread; a read that catches up waits for the thread to have applied the log; a shutdown stops it', async () => {
    const { dataDir, server, post, delivered, listed, actionsToday, evaluated } = await serve({ WARDEN_READ_MODEL_THREAD: 'on' });
    await waitFor(() => server.logs().includes(THREAD_STARTED), 'the thread started');
    await post(ids('spam', 30), (id) => `spam ${id}`);
    await waitFor(() => evaluated() === 30, { what: 'every item evaluated', timeoutMs: 60_000 });
    // No waiting here: the request's catch-up was passed to the thread, and answered once it had applied the log.
    expect(await actionsToday()).toBe(30);
    await waitFor(() => delivered() === 30, { what: 'every delivery recorded', timeoutMs: 60_000 });
    // The deliveries' list reads without a catch-up (a live view): the thread gets there by itself.
    await waitFor(async () => (await listed()).filter((s) => s === 'delivered').length === 30, 'every delivery listed as delivered');
    // The thread's progress crosses to the main thread: its projections' positions in /metrics reach the log's head.
    const head = eventCount(dataDir);
    await waitFor(
      async () => positionIn(await (await fetch(server.url + '/metrics')).text(), 'audit-item-history') >= head,
      "the item history's position in /metrics",
    );
    // And the thread's own heap, which the process's heap figures leave out.
    const heapLine = (await (await fetch(server.url + '/metrics')).text()).split('\n').find((l) => l.startsWith('warden_read_model_thread_heap_used_bytes '));
    expect(Number(heapLine?.split(' ')[1])).toBeGreaterThan(1_000_000);
    expect(await server.stop('SIGTERM')).toBe(0);
    expect(server.logs()).toContain('"msg":"stores closed"');
    // Stopped by its message, not terminated at the stop's time limit; never ended on its own.
    expect(server.logs()).not.toContain('did not stop in time');
    expect(server.logs()).not.toContain('read-model thread ended');
  }, 120_000);

  it('auto: no thread while the log is quiet; started once it has grown by 5,000 events, going on from where the main thread stopped', async () => {
    const { dataDir, server, post, delivered, listed, actionsToday, evaluated } = await serve({});
    await post(ids('early', 20), (id) => `spam ${id}`);
    await waitFor(() => delivered() === 20, { what: 'the first deliveries recorded', timeoutMs: 60_000 });
    expect(await actionsToday()).toBe(20);
    expect(server.logs()).not.toContain(THREAD_STARTED);
    // Two events each (submitted, evaluated): past the threshold.
    await post(ids('plain', 2600), () => 'hello');
    await waitFor(() => server.logs().includes(THREAD_STARTED), { what: 'the thread started', timeoutMs: 60_000 });
    await post(ids('late', 20), (id) => `spam ${id}`);
    await waitFor(() => evaluated() === 2640, { what: 'every item evaluated', timeoutMs: 60_000 });
    expect(await actionsToday()).toBe(40);
    await waitFor(() => delivered() === 40, { what: 'the later deliveries recorded', timeoutMs: 60_000 });
    await waitFor(async () => (await listed()).filter((s) => s === 'delivered').length === 40, 'every delivery listed as delivered');
    // Every item's evaluation in the thread's read model, each once.
    const evaluations = () => countReadModels(dataDir, 'SELECT count(*) AS n FROM "rm/rules_item_evaluations"');
    await waitFor(() => evaluations() === 2640, { what: 'every evaluation projected', timeoutMs: 60_000 });
    expect(server.logs()).not.toContain('read-model thread ended');
  }, 180_000);
});
