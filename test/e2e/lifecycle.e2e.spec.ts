import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { createServer, request } from 'node:http';
import { describe, expect, it } from 'vitest';
import { createOrgWithKey, freshDataDir, runCli, runServerToExit, type RunningWarden, startWarden, testEnv } from '../support/warden-process.js';
import { waitFor } from '../support/wait-for.js';

/** A POST whose body is sent in two parts, the second only when `finish` is called. */
function slowRequest(url: string, key: string, requestId: string) {
  let finish!: () => void;
  const status = new Promise<number>((resolve, reject) => {
    const req = request(url, {
      method: 'POST',
      agent: false,
      headers: { 'x-api-key': key, 'x-request-id': requestId, 'content-type': 'application/json', 'transfer-encoding': 'chunked' },
    });
    req.on('response', (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
    req.write('{"a":');
    finish = () => req.end('1}');
  });
  return { finish: () => finish(), status };
}

/** Whether the server has logged a line with all these fragments. */
const logged = (warden: RunningWarden, ...fragments: string[]) =>
  warden
    .logs()
    .split('\n')
    .some((line) => fragments.every((f) => line.includes(f)));

const SECRET_KEY = Buffer.alloc(32, 7).toString('base64');

const organization = (url: string, key: string) => fetch(url + '/api/v1/organization', { headers: { 'x-api-key': key } });

describe('server lifecycle', () => {
  it('keeps every organization and key across kill -9 and a restart', async () => {
    const env = testEnv(freshDataDir());
    const first = await startWarden(env);
    const key = await createOrgWithKey(env, 'acme');
    expect((await organization(first.url, key)).status).toBe(200);
    await first.stop('SIGKILL');

    const second = await startWarden(env);
    try {
      const res = await organization(second.url, key);
      expect(res.status).toBe(200);
      expect(await res.json()).toMatchObject({ id: 'acme' });
    } finally {
      await second.stop();
    }
  });

  it('shuts down gracefully on SIGTERM, closing the stores and recording last key use', async () => {
    // At the debug level a request's start is logged ("request started"), not only its end.
    const env = testEnv(freshDataDir(), { WARDEN_LOG_LEVEL: 'debug' });
    const warden = await startWarden(env);
    const key = await createOrgWithKey(env, 'acme');
    expect((await organization(warden.url, key)).status).toBe(200);
    // A request whose body is still arriving when SIGTERM comes is answered, not cut off. The
    // server's log shows when it has begun the request and when it has begun shutting down.
    const inFlight = slowRequest(warden.url + '/api/v1/organization', key, 'slow-at-sigterm');
    await waitFor(() => logged(warden, '"requestId":"slow-at-sigterm"', '"msg":"request started"'), 'the server to begin the slow request');
    const stopped = warden.stop('SIGTERM');
    await waitFor(() => logged(warden, '"msg":"shutting down"'), 'the server to begin shutting down');
    inFlight.finish();
    expect(await inFlight.status).toBe(405);
    expect(await stopped).toBe(0);
    expect(warden.logs()).toContain('stores closed');
    const list = await runCli(['api-key', 'list', '--org', 'acme'], env);
    expect(list.code).toBe(0);
    expect(list.stdout).toMatch(/active\s+\S+\s+\d{4}-\d\d-\d\dT[\d:.]+Z\s*$/m);
    expect(list.stdout).not.toContain('never');
  });

  it('closes a connection still open after the drain time, so that a client that never finishes cannot hold the shutdown', async () => {
    const env = testEnv(freshDataDir(), { WARDEN_LOG_LEVEL: 'debug', WARDEN_SHUTDOWN_DRAIN: '1s' });
    const warden = await startWarden(env);
    const key = await createOrgWithKey(env, 'acme');
    // A request whose body never ends: without the drain time, the close would wait for it.
    const stuck = slowRequest(warden.url + '/api/v1/organization', key, 'never-finishes');
    // Its failure is taken as it comes (the connection is reset during the stop), not left unhandled meanwhile.
    const outcome = stuck.status.then(
      (status) => `answered ${status}`,
      (error: unknown) => error,
    );
    await waitFor(() => logged(warden, '"requestId":"never-finishes"', '"msg":"request started"'), 'the server to begin the request');
    expect(await warden.stop('SIGTERM')).toBe(0);
    expect(warden.logs()).toContain('connections still open after the drain time: closed');
    expect(warden.logs()).toContain('stores closed');
    expect(await outcome).toBeInstanceOf(Error);
  });

  it('answers 503 to new requests from the start of a shutdown whose evaluations under way hold it (background on the event loop)', async () => {
    // A classifier that answers only when told: an evaluation waits on it while the shutdown begins.
    const waiting: Array<() => void> = [];
    const classifier = createServer((req, res) => {
      req.resume();
      waiting.push(() => res.writeHead(200, { 'content-type': 'application/json' }).end('{"score":0}'));
    });
    await new Promise<void>((r) => classifier.listen(0, '127.0.0.1', r));
    const { port } = classifier.address() as { port: number };
    const dataDir = freshDataDir();
    const env = testEnv(dataDir, { WARDEN_LOG_LEVEL: 'debug', WARDEN_BACKGROUND_THREAD: 'off' });
    const config = join(dataDir, 'classified.yaml');
    writeFileSync(
      config,
      `org: { id: acme, name: Acme }
itemTypes: [{ id: post, name: Post, kind: CONTENT, fields: [{ name: text, type: STRING }] }]
actions: [{ id: label, name: Label, kind: CUSTOMER_DEFINED_ACTION, itemTypeIds: [post], callback: { url: "http://127.0.0.1:9/hooks" } }]
rules:
  - id: classified
    name: Classified
    status: LIVE
    itemTypeIds: [post]
    actionIds: [label]
    conditionSet: { conjunction: OR, conditions: [{ input: { field: text }, signal: { type: HTTP_SIGNAL, args: { url: "http://127.0.0.1:${port}/classify", timeoutMs: 30000 } }, comparator: GT, value: 0.5 }] }
`,
    );
    expect((await runCli(['apply', config], env)).code).toBe(0);
    const key = (await runCli(['api-key', 'create', '--org', 'acme'], env)).stdout.trim().split('\n').at(-1)!;
    const warden = await startWarden(env);
    try {
      const submitted = await fetch(`${warden.url}/api/v1/items/async/`, {
        method: 'POST',
        headers: { 'x-api-key': key, 'content-type': 'application/json' },
        body: JSON.stringify({ items: [{ id: 'p1', typeId: 'post', data: { text: 'hello' } }] }),
      });
      expect(submitted.status).toBe(202);
      await waitFor(() => waiting.length > 0, 'the evaluation to ask the classifier');
      const stopped = warden.stop('SIGTERM');
      await waitFor(() => logged(warden, '"msg":"shutting down"'), 'the server to begin shutting down');
      // The evaluation still holds the shutdown: a new request is told to go elsewhere, not served.
      const during = await fetch(`${warden.url}/health/live`, { headers: { connection: 'close' } });
      expect(during.status).toBe(503);
      expect(during.headers.get('connection')).toBe('close');
      waiting.splice(0).forEach((answer) => answer());
      expect(await stopped).toBe(0);
    } finally {
      await warden.stop('SIGKILL').catch(() => undefined);
      classifier.closeAllConnections();
      await new Promise<void>((r) => classifier.close(() => r()));
    }
  });

  it("finishes a graceful shutdown when Ctrl-C's SIGINT comes twice (a terminal's, then npm's)", async () => {
    const env = testEnv(freshDataDir(), { WARDEN_LOG_LEVEL: 'debug' });
    const warden = await startWarden(env);
    const key = await createOrgWithKey(env, 'acme');
    expect((await organization(warden.url, key)).status).toBe(200);
    // A request still in flight holds the shutdown open while the second signal arrives.
    const inFlight = slowRequest(warden.url + '/api/v1/organization', key, 'slow-at-sigint');
    await waitFor(() => logged(warden, '"requestId":"slow-at-sigint"', '"msg":"request started"'), 'the server to begin the slow request');
    const stopped = warden.stop('SIGINT');
    await waitFor(() => logged(warden, '"msg":"shutting down"'), 'the server to begin shutting down');
    warden.process.kill('SIGINT');
    await waitFor(() => logged(warden, '"msg":"already shutting down"'), 'the second signal noted');
    inFlight.finish();
    expect(await inFlight.status).toBe(405);
    expect(await stopped).toBe(0);
    expect(warden.logs()).toContain('stores closed');
    const list = await runCli(['api-key', 'list', '--org', 'acme'], env);
    expect(list.stdout).not.toContain('never');
  });

  it('refuses to start with one clear line naming a bad variable', async () => {
    const result = await runServerToExit(testEnv(freshDataDir(), { WARDEN_ROLE: 'leader' }));
    expect(result.code).toBe(1);
    expect(result.stderr.trim().split('\n')).toEqual(['Invalid configuration: WARDEN_ROLE must be one of all, api, worker, got "leader"']);
    const port = await runServerToExit(testEnv(freshDataDir(), { PORT: 'eighty' }));
    expect(port.stderr).toContain('PORT must be a whole number');
  });

  it('refuses to start with one line, and no stack trace or other account of it, when its port is taken', async () => {
    // What a second `npm start` (or a replayed directory served without PORT) meets.
    const holder = createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    try {
      const taken = (holder.address() as { port: number }).port;
      const result = await runServerToExit(testEnv(freshDataDir(), { PORT: String(taken) }));
      expect(result.code).toBe(1);
      const lines = result.stderr.trim().split('\n');
      expect(lines.at(-1)).toBe(`Cannot start: port ${taken} on 127.0.0.1 is already in use by another process (PORT=… picks another port)`);
      expect(result.stderr).not.toMatch(/^\s+at /m);
      // Nest's own report of the failed listen, and its "successfully started" before it, are at
      // debug: nothing at info or above says anything else about the start-up.
      expect(result.stdout + result.stderr).not.toMatch(/EADDRINUSE|successfully started/);
    } finally {
      await new Promise((resolve) => holder.close(resolve));
    }
  });

  // The bound on start-up time is the test's timeout, not an assertion on elapsed time.
  it('fails start-up with a clear message when KurrentDB is unreachable', async () => {
    const result = await runServerToExit(
      testEnv(freshDataDir(), { WARDEN_EVENTSTORE_URL: 'kurrentdb://127.0.0.1:1?tls=false', WARDEN_SECRET_KEY: SECRET_KEY }),
    );
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^Cannot start: KurrentDB at \S*127\.0\.0\.1:1\S* is unreachable/);
  }, 15_000);

  it('fails start-up with a clear message when MongoDB is unreachable', async () => {
    // A shorter wait than the 8 s default (a configured value, not a clock to fake: the driver's server selection waits it).
    const env = { WARDEN_MONGO_URL: 'mongodb://127.0.0.1:1/warden', WARDEN_MONGO_CONNECT_TIMEOUT_MS: '500', WARDEN_SECRET_KEY: SECRET_KEY };
    const result = await runServerToExit(testEnv(freshDataDir(), env));
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^Cannot start: MongoDB at 127\.0\.0\.1:1 is unreachable after 500 ms/);
  }, 15_000);

  it('refuses to start a production profile without WARDEN_SECRET_KEY', async () => {
    const result = await runServerToExit(testEnv(freshDataDir(), { WARDEN_MONGO_URL: 'mongodb://127.0.0.1:1/warden' }));
    expect(result.code).toBe(1);
    expect(result.stderr.trim()).toBe(
      'Cannot start: Invalid configuration: WARDEN_SECRET_KEY or WARDEN_SECRET_KEY_FILE must be set when WARDEN_EVENTSTORE_URL or WARDEN_MONGO_URL is set',
    );
  });

  const systemNode = '/usr/bin/node';
  const systemMajor = existsSync(systemNode) ? Number(spawnSync(systemNode, ['-p', 'process.versions.node.split(".")[0]']).stdout.toString().trim()) : NaN;
  it.skipIf(!(systemMajor < 24))(`refuses to start on an older Node with one line (needs an old ${systemNode}; found major ${systemMajor})`, async () => {
    const result = spawnSync(systemNode, ['dist/apps/server/bundle/main.js'], { env: testEnv(freshDataDir()) });
    expect(result.status).toBe(1);
    expect(result.stderr.toString().trim()).toMatch(/^Warden needs Node\.js 24 or newer \(this is v\d+/);
  });
});
