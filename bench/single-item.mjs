// One-item POST /api/v1/items/async/ under load (issue 11): requests/s and latency at 100 and 200
// connections, each request one item with a new id, on the embedded profile, for the one-process
// layout (WARDEN_ROLE=all, as `npm start` runs it) and for an api process with a separate worker
// on the same data directory. One rule fires on every tenth item. Also how far evaluation lagged:
// items evaluated by the end of each run.
// Usage: node bench/single-item.mjs [seconds per run, default 10] [layouts: all,split,api]
// `api`: an api process and nothing evaluating (the accepting path's own ceiling; the items wait).
// The rate limiter is off, as issue 30 measures it; WARDEN_BENCH_RATE_LIMIT=on keeps it on with a
// limit the run never reaches (its cost is then part of every request).
// WARDEN_BENCH_PROFILE=<dir> writes a CPU profile of every server process there.
// WARDEN_BENCH_TAIL=1 adds the latency's p75, p90, p97.5 and p99.9 beside the p99.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import Database from 'better-sqlite3';
import { cpuSeconds, prepareDataDir, serverRoles } from './support/server-roles.mjs';

const SECONDS = Number(process.argv[2] ?? 10);
const LAYOUTS = (process.argv[3] ?? 'all,split').split(',');
const WARMUP_SECONDS = 3;
const CONNECTIONS = [100, 200];
const port = 41000 + Math.floor(Math.random() * 1000);
const dir = mkdtempSync(join(tmpdir(), 'warden-bench-single-'));
const RATE_LIMITED = process.env.WARDEN_BENCH_RATE_LIMIT === 'on';
const env = {
  ...process.env,
  HOST: '127.0.0.1',
  WARDEN_LOG_LEVEL: 'warn',
  WARDEN_RATE_LIMIT_PER_SECOND: RATE_LIMITED ? '1000000' : '0',
  WARDEN_RATE_LIMIT_BURST: '10000000',
};

writeFileSync(
  join(dir, 'bench.yaml'),
  `org: { id: bench, name: Bench }
itemTypes:
  - { id: post, name: Post, kind: CONTENT, fields: [{ name: text, type: STRING, required: true }, { name: title, type: STRING }] }
actions:
  - { id: review, name: Review, kind: ENQUEUE_TO_MRT, itemTypeIds: [post] }
rules:
  - id: spam
    name: Spam
    status: LIVE
    itemTypeIds: [post]
    actionIds: [review]
    conditionSet:
      conjunction: OR
      conditions:
        - { input: { field: text }, signal: { type: TEXT_CONTAINS, args: { terms: [lottery] } }, comparator: EQUALS, value: true }
`,
);

const servers = serverRoles(env);

/** A fresh data directory with the benchmark organization configured; returns an API key. */
const prepare = (dataDir) => prepareDataDir(env, dataDir, join(dir, 'bench.yaml'), 'bench');

let sequence = 0;
/** One item per request, each with a new id; every tenth one fires the rule. */
function oneItemBody() {
  const n = sequence++;
  return JSON.stringify({
    items: [{ id: `single-${n}`, typeId: 'post', data: { text: n % 10 === 0 ? `win the lottery ${n}` : `hello world ${n}`, title: 'a title' } }],
  });
}

function load(url, key, connections, seconds) {
  return autocannon({
    url,
    connections,
    duration: seconds,
    requests: [
      {
        method: 'POST',
        path: '/api/v1/items/async/',
        headers: { 'x-api-key': key, 'content-type': 'application/json' },
        setupRequest: (request) => ({ ...request, body: oneItemBody() }),
      },
    ],
  });
}

/** µs of CPU per request answered: all processes, then each process's share when there are several. */
function perRequest(cpu, requests) {
  const us = (seconds) => (Number.isNaN(seconds) ? 'n/a' : String(Math.round((seconds * 1e6) / Math.max(1, requests))));
  const total = us(cpu.reduce((a, b) => a + b, 0));
  return cpu.length === 1 ? total : `${total} (${cpu.map(us).join(' + ')})`;
}

function counts(dataDir) {
  const db = new Database(join(dataDir, 'warden.db'), { readonly: true });
  const count = (type) => db.prepare('SELECT count(*) AS n FROM events WHERE type = ?').get(type).n;
  // One read transaction: both counts from the same state of the log, which the server still writes.
  const result = db.transaction(() => ({ submitted: count('ItemSubmitted'), evaluated: count('ItemEvaluated') }))();
  db.close();
  return result;
}

const rows = [];

/** Warm-up, then one run per connection count, on a fresh data directory. */
async function layout(label, roles) {
  const dataDir = join(dir, label.replace(/\W+/g, '-'));
  const key = prepare(dataDir);
  const children = [];
  for (const [i, role] of roles.entries()) children.push(await servers.start(role, port + i, dataDir));
  const url = `http://127.0.0.1:${port}`;
  await load(url, key, 50, WARMUP_SECONDS);
  for (const connections of CONNECTIONS) {
    const cpuBefore = cpuSeconds(children);
    // The load generator runs in this process, on the same cores: what it takes, the server cannot have.
    const loadBefore = process.cpuUsage();
    const result = await load(url, key, connections, SECONDS);
    const loadCpu = process.cpuUsage(loadBefore);
    const cpu = cpuSeconds(children).map((seconds, i) => seconds - cpuBefore[i]);
    const after = counts(dataDir);
    rows.push({
      label,
      connections,
      rps: Math.round(result.requests.average),
      p50: result.latency.p50,
      p99: result.latency.p99,
      tail: process.env.WARDEN_BENCH_TAIL
        ? ` (p75 ${result.latency.p75} p90 ${result.latency.p90} p97.5 ${result.latency.p97_5} p99.9 ${result.latency.p99_9})`
        : '',
      max: result.latency.max,
      non2xx: result.non2xx + result.errors + result.timeouts,
      cpuPerRequest: perRequest(cpu, result.requests.total),
      loadPerRequest: Math.round((loadCpu.user + loadCpu.system) / Math.max(1, result.requests.total)),
      evaluated: `${after.evaluated} of ${after.submitted}`,
    });
  }
  for (const c of children) await servers.stop(c);
}

try {
  if (LAYOUTS.includes('all')) await layout('one process (WARDEN_ROLE=all)', ['all']);
  if (LAYOUTS.includes('split')) await layout('api + worker processes', ['api', 'worker']);
  if (LAYOUTS.includes('api')) await layout('api alone (nothing evaluates)', ['api']);
} finally {
  await servers.stopAll();
  rmSync(dir, { recursive: true, force: true });
}

console.log(
  `One-item POST /api/v1/items/async/, embedded profile, rate limiter ${RATE_LIMITED ? 'on' : 'off'}, ${SECONDS} s per run after a ${WARMUP_SECONDS} s warm-up (node ${process.version})\n`,
);
console.log(
  '| layout | connections | requests/s | p50 ms | p99 ms | max ms | non-2xx | server CPU µs per request (api + worker) | load generator CPU µs per request | items evaluated / recorded at the end of the run |',
);
console.log('|---|---|---|---|---|---|---|---|---|---|');
for (const r of rows) {
  console.log(
    `| ${r.label} | ${r.connections} | ${r.rps} | ${r.p50} | ${r.p99}${r.tail} | ${r.max} | ${r.non2xx} | ${r.cpuPerRequest} | ${r.loadPerRequest} | ${r.evaluated} |`,
  );
}
