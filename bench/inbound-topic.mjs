// Items/s through the inbound topic ITEM_SUBMISSION_EVENT (a real nats-server -js, messages of 100
// items) end to end, recorded and fully evaluated, against POST /api/v1/items/async/ (requests of
// 100 items) measured in the same run, each on a fresh data directory with 20 text-signal rules,
// one process (WARDEN_ROLE=all). Needs Debian's nats-server (node test/support/ensure-nats-server.mjs).
// Usage: node bench/inbound-topic.mjs [items]
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { prepareDataDir, serverRoles } from './support/server-roles.mjs';
import { textSignalRules, WORDS } from './support/text-rules.mjs';

const ITEMS = Number(process.argv[2] ?? 10_000);
const BATCH = 100;
const CONCURRENCY = 8;
const NATS_SERVER = process.env.WARDEN_NATS_SERVER ?? '/usr/sbin/nats-server';
if (!existsSync(NATS_SERVER)) throw new Error(`${NATS_SERVER} is missing: run node test/support/ensure-nats-server.mjs`);

const freePort = () =>
  new Promise((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });

const dir = mkdtempSync(join(tmpdir(), 'warden-bench-topic-'));
const natsPort = await freePort();
const env = { ...process.env, HOST: '127.0.0.1', WARDEN_LOG_LEVEL: 'warn', WARDEN_RATE_LIMIT_PER_SECOND: '0' };

const rules = textSignalRules({ suffix: 'x' });
writeFileSync(
  join(dir, 'bench.yaml'),
  `org: { id: bench, name: Bench }
inboundTopic: { enabled: true }
itemTypes:
  - { id: post, name: Post, kind: CONTENT, fields: [{ name: text, type: STRING, required: true }] }
actions:
  - { id: review, name: Review, kind: ENQUEUE_TO_MRT, itemTypeIds: [post] }
rules:
${rules}
`,
);

const items = (b) =>
  Array.from({ length: BATCH }, (_, i) => {
    const n = b * BATCH + i;
    return { id: `item-${n}`, typeId: 'post', data: { text: `hello ${WORDS[n % 10]} ${n % 1000} and some more ordinary words here` } };
  });

/** Runs `send(i)` for i in [0, count) with CONCURRENCY at once; seconds taken. */
async function drive(count, send) {
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < count) await send(next++);
    }),
  );
  return (performance.now() - started) / 1000;
}

/**
 * Polls the log until `count` events of `type` are there; the time it was first seen so. Each poll
 * counts only the events after the last one it saw: a count over the whole table (there is no
 * index on type) read every row each 20 ms, and the bench took CPU from the server it measures,
 * the more the longer it polled (from the first publish on the topic, only once the requests were
 * answered on HTTP).
 */
async function reached(dataDir, type, count) {
  const db = new Database(join(dataDir, 'warden.db'), { readonly: true });
  const between = db.prepare('SELECT count(*) AS n FROM events WHERE position > ? AND position <= ? AND type = ?');
  const head = db.prepare('SELECT max(position) AS last FROM events');
  let seen = 0;
  let after = 0;
  for (;;) {
    // The head first: every position at or below it is committed (one writer), so none is missed.
    const last = head.get().last ?? 0;
    seen += between.get(after, last, type).n;
    after = last;
    if (seen >= count) break;
    await new Promise((r) => setTimeout(r, 20));
  }
  db.close();
  return performance.now();
}

/**
 * The two paths four times each in the order `http, topic, topic, http, http, topic, topic, http`
 * (BENCH_ORDER to change it): the load drifts during a run, and each path taking early and late
 * turns alike evens the drift out between them; each run has a fresh data directory and server.
 * Four runs a path because one pair alone differs by up to 15 % on a quiet machine (fsync times).
 */
const ORDER = (process.env.BENCH_ORDER ?? 'http,topic,topic,http,http,topic,topic,http').split(',');
const rows = [];
const results = { http: [], topic: [] };
const servers = serverRoles(env);
const requests = ITEMS / BATCH;
const nats = spawn(NATS_SERVER, ['-js', '-a', '127.0.0.1', '-p', String(natsPort), '-sd', join(dir, 'nats')], { stdio: 'ignore' });
try {
  let client;
  for (let tries = 0; client === undefined; tries++) {
    client = await connect({ servers: `nats://127.0.0.1:${natsPort}` }).catch((e) => {
      if (tries > 100) throw e;
      return undefined;
    });
    if (client === undefined) await new Promise((r) => setTimeout(r, 50));
  }
  const js = jetstream(client);
  const manager = await jetstreamManager(client);

  // HTTP: the same items, 100 per request.
  const http = async (run) => {
    const dataDir = join(dir, `http-${run}`);
    const key = prepareDataDir(env, dataDir, join(dir, 'bench.yaml'), 'bench');
    const port = await freePort();
    const warden = await servers.start('all', port, dataDir);
    const started = performance.now();
    const headers = { 'x-api-key': key, 'content-type': 'application/json' };
    const acceptSeconds = await drive(requests, async (b) => {
      const res = await fetch(`http://127.0.0.1:${port}/api/v1/items/async`, { method: 'POST', headers, body: JSON.stringify({ items: items(b) }) });
      if (res.status !== 202) throw new Error(`${res.status} ${await res.text()}`);
      await res.arrayBuffer();
    });
    const evaluatedSeconds = ((await reached(dataDir, 'ItemEvaluated', ITEMS)) - started) / 1000;
    await servers.stop(warden);
    results.http.push(ITEMS / evaluatedSeconds);
    rows.push([`run ${run}, HTTP: items recorded (202 answered), 100 per request`, Math.round(ITEMS / acceptSeconds), `${acceptSeconds.toFixed(1)} s`]);
    rows.push([
      `run ${run}, HTTP: items fully evaluated (first request to last ItemEvaluated)`,
      Math.round(ITEMS / evaluatedSeconds),
      `${evaluatedSeconds.toFixed(1)} s`,
    ]);
  };

  // The topic: published as fast as the broker acknowledges, 100 items per message.
  const topic = async (run) => {
    const dataDir = join(dir, `topic-${run}`);
    prepareDataDir(env, dataDir, join(dir, 'bench.yaml'), 'bench');
    // A fresh stream for each run: the consumer starts at what this run publishes.
    await manager.streams.delete('WARDEN_ITEMS').catch(() => undefined);
    const port = await freePort();
    const warden = await servers.start('all', port, dataDir, { WARDEN_NATS_URL: `nats://127.0.0.1:${natsPort}` });
    // The stream exists once Warden consumes (its subject's consumer comes with the first message).
    while (
      !(await manager.streams.info('WARDEN_ITEMS').then(
        () => true,
        () => false,
      ))
    )
      await new Promise((r) => setTimeout(r, 50));
    const started = performance.now();
    const publishSeconds = await drive(requests, (b) =>
      js.publish(
        'warden.bench.items',
        JSON.stringify({ type: 'ITEM_SUBMISSION_EVENT', version: 1, orgId: 'bench', eventId: `e-${run}-${b}`, items: items(b) }),
      ),
    );
    const recordedSeconds = ((await reached(dataDir, 'ItemSubmitted', ITEMS)) - started) / 1000;
    const evaluatedSeconds = ((await reached(dataDir, 'ItemEvaluated', ITEMS)) - started) / 1000;
    await servers.stop(warden);
    results.topic.push(ITEMS / evaluatedSeconds);
    rows.push([
      `run ${run}, topic: messages published (broker acknowledged), 100 items per message`,
      Math.round(ITEMS / publishSeconds),
      `${publishSeconds.toFixed(1)} s`,
    ]);
    rows.push([
      `run ${run}, topic: items recorded (first publish to last ItemSubmitted)`,
      Math.round(ITEMS / recordedSeconds),
      `${recordedSeconds.toFixed(1)} s`,
    ]);
    rows.push([
      `run ${run}, topic: items fully evaluated (first publish to last ItemEvaluated)`,
      Math.round(ITEMS / evaluatedSeconds),
      `${evaluatedSeconds.toFixed(1)} s`,
    ]);
  };

  for (const [i, path] of ORDER.entries()) await (path === 'topic' ? topic : http)(i + 1);
  await client.close();
} finally {
  await servers.stopAll();
  nats.kill('SIGTERM');
  await new Promise((r) => nats.once('exit', r));
  rmSync(dir, { recursive: true, force: true });
}

console.log(
  `Inbound topic against HTTP, embedded profile, one process, ${ITEMS} items, ${CONCURRENCY} concurrent publishers/clients, nats-server -js (node ${process.version})\n`,
);
console.log('| measurement | items/s | time |');
console.log('|---|---|---|');
for (const [name, rate, time] of rows) console.log(`| ${name} | ${rate} | ${time} |`);
const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;
if (results.http.length > 0 && results.topic.length > 0) {
  console.log(
    `\nFully evaluated, mean of the runs: HTTP ${Math.round(mean(results.http))} items/s, topic ${Math.round(mean(results.topic))} items/s (topic/HTTP ${(mean(results.topic) / mean(results.http)).toFixed(2)})`,
  );
}
