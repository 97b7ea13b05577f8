import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { eventCount, spamRemovalOrg, writeConfig } from '../support/config-files.js';
import { type Receiver, startReceiver } from '../support/http-receiver.js';
import { projectionPosition } from '../support/projection-progress.js';
import { waitFor } from '../support/wait-for.js';
import { BUNDLE_DIR, freshDataDir, type RunningWarden, runCliBatch, startWarden, testEnv } from '../support/warden-process.js';

// The background thread (docs/architecture.md, "The background thread"): an `all` process, as
// `npm start` runs it, answers requests on its event loop and evaluates, strikes and calls back on
// a worker thread of its own; /metrics shows both threads' figures; a shutdown stops the thread's
// work before the stores close. WARDEN_BACKGROUND_THREAD=off runs it all on the one event loop.

const STARTED = '"msg":"background thread started"';

/** The JSON log lines of a server's output. */
function lines(logs: string): Array<Record<string, unknown>> {
  return logs
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

describe('the background thread of a one-process server', () => {
  let warden: RunningWarden | undefined;
  let receiver: Receiver | undefined;
  afterEach(async () => {
    await warden?.stop();
    await receiver?.close();
    warden = receiver = undefined;
  });

  async function serve(extra: Record<string, string> = {}, entry?: string) {
    const dataDir = freshDataDir();
    receiver = await startReceiver();
    const env = testEnv(dataDir, extra);
    const [, keyMade] = await runCliBatch(env, [
      ['apply', writeConfig(spamRemovalOrg({ id: 'bgt', name: 'Background thread' }, receiver.url))],
      ['api-key', 'create', '--org', 'bgt'],
    ]);
    warden = await startWarden(env, undefined, entry);
    const server = warden;
    const post = async (id: string, text: string) => {
      const res = await fetch(server.url + '/api/v1/items/async', {
        method: 'POST',
        headers: { 'x-api-key': keyMade!.at(-1)!, 'content-type': 'application/json' },
        body: JSON.stringify({ items: [{ id, typeId: 'post', data: { text, author: { id: `author-${id}`, typeId: 'user' } } }] }),
      });
      expect(res.status).toBe(202);
    };
    return { dataDir, server, post };
  }

  it('evaluates and calls back on the thread, shows its progress in /metrics, and stops it before the stores close', async () => {
    const { dataDir, server, post } = await serve();
    await waitFor(() => server.logs().includes(STARTED), 'the background thread to start');
    await post('spam-1', 'spam offer');
    await waitFor(() => receiver!.requests.length === 1, 'the rule’s callback');
    // The reactors ran on the thread (their log lines say so) and none on the event loop.
    const leases = lines(server.logs()).filter((l) => l['msg'] === 'reactor lease taken: running here');
    expect(leases.map((l) => l['lease'])).toContain('reactor:rules-evaluation');
    expect(leases.every((l) => l['thread'] === 'background')).toBe(true);
    // The evaluation reactor's position, counted on the thread, is in the process's /metrics.
    await waitFor(async () => (await projectionPosition(server.url, 'rules-evaluation')) > 0, 'the thread’s reactor position in /metrics');
    const metrics = await (await fetch(`${server.url}/metrics`)).text();
    // The HTTP thread's own figures are there too, once.
    expect(metrics).toMatch(/^warden_http_requests_total\{method="POST",route="\/api\/v1\/items\/async",status="202"\} 1$/m);
    expect(metrics.split('\n').filter((l) => l.startsWith('# TYPE warden_process_cpu_user_seconds_total')).length).toBe(1);

    expect(await server.stop('SIGTERM')).toBe(0);
    const log = lines(server.logs()).map((l) => String(l['msg']));
    const givenUp = log.indexOf('reactor lease given up: stopping');
    expect(givenUp).toBeGreaterThan(-1);
    expect(log.indexOf('stores closed')).toBeGreaterThan(givenUp);
    expect(eventCount(dataDir, "type = 'CallbackDelivered'")).toBe(1);
    warden = undefined;
  });

  it('with WARDEN_BACKGROUND_THREAD=off, runs the reactors on the event loop that serves requests', async () => {
    const { server, post } = await serve({ WARDEN_BACKGROUND_THREAD: 'off' });
    await post('spam-2', 'spam offer');
    await waitFor(() => receiver!.requests.length === 1, 'the rule’s callback');
    const leases = lines(server.logs()).filter((l) => l['msg'] === 'reactor lease taken: running here');
    expect(leases.map((l) => l['lease'])).toContain('reactor:rules-evaluation');
    expect(leases.some((l) => l['thread'] === 'background')).toBe(false);
    expect(server.logs()).not.toContain(STARTED);
  });

  it('runs the work on the event loop when the thread can never start (a build without its entry), after three tries', async () => {
    // A copy of the bundle beside the real one (so that its packages resolve), without the thread's entry.
    const copy = mkdtempSync(join(BUNDLE_DIR, '..', 'bundle-without-thread-'));
    try {
      cpSync(BUNDLE_DIR, copy, { recursive: true });
      rmSync(join(copy, 'background-thread.js'));
      const { server, post } = await serve({}, join(copy, 'main.js'));
      await waitFor(() => server.logs().includes('"msg":"background thread could not start: its work runs on the main thread"'), {
        what: 'the fall-back',
        timeoutMs: 20_000,
      });
      await post('spam-3', 'spam offer');
      await waitFor(() => receiver!.requests.length === 1, 'the rule’s callback');
      const leases = lines(server.logs()).filter((l) => l['msg'] === 'reactor lease taken: running here');
      expect(leases.map((l) => l['lease'])).toContain('reactor:rules-evaluation');
      expect(leases.some((l) => l['thread'] === 'background')).toBe(false);
      expect(await server.stop('SIGTERM')).toBe(0);
      warden = undefined;
    } finally {
      rmSync(copy, { recursive: true, force: true });
    }
  });
});
