// Callbacks/s delivered to a local receiver on the embedded profile, and the effect of one hanging
// receiver on the others. Usage: node bench/callbacks.mjs [items]
//
//  1. end to end: items posted as fast as they are accepted, each matching a rule whose action calls
//     back receiver A; callbacks/s from the first to the last callback received.
//  2. delivery alone: the same callbacks after they were dead-lettered, redelivered at once with
//     `callbacks redeliver --all-dead` (no evaluation in the way).
//  3. and 4. paced load (items at a steady rate), each item calling back A and a second receiver:
//     healthy in 3, hanging (never answers; 10 s attempt timeout) in 4. A's latency from the
//     request that submitted the item to the callback's arrival.
import { spawn, spawnSync } from 'node:child_process';
import { createServer } from 'node:http';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const ITEMS = Number(process.argv[2] ?? 20_000);
const PACED_RATE = 500; // items/s
const PACED_SECONDS = 15;
const BATCH = 250;
const CONCURRENCY = 4;
const port = 41000 + Math.floor(Math.random() * 1000);
const dir = mkdtempSync(join(tmpdir(), 'warden-bench-callbacks-'));
const baseEnv = {
  ...process.env,
  HOST: '127.0.0.1',
  WARDEN_LOG_LEVEL: 'warn',
  WARDEN_RATE_LIMIT_PER_SECOND: '0',
  WARDEN_OUTBOUND_ALLOWLIST: '127.0.0.0/8',
};

/** A receiver on loopback: records when each item's callback arrived; `hang` never answers. */
async function receiver({ hang = false, status = () => 200 } = {}) {
  const arrivals = new Map();
  let count = 0;
  let first = 0;
  let last = 0;
  const server = createServer({ keepAliveTimeout: 60_000 }, (req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const now = performance.now();
      if (hang) return;
      const code = status();
      if (code < 300) {
        const { item } = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        if (!arrivals.has(item.id)) arrivals.set(item.id, now);
        count++;
        if (!first) first = now;
        last = now;
      }
      res.writeHead(code, { 'content-type': 'application/json' });
      res.end('{}');
    });
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    arrivals,
    stats: () => ({ count, first, last }),
    reset: () => {
      arrivals.clear();
      count = first = last = 0;
    },
    close: () => {
      server.closeAllConnections();
      return new Promise((r) => server.close(r));
    },
  };
}

const config = (actions) => `org: { id: bench, name: Bench }
itemTypes:
  - { id: post, name: Post, kind: CONTENT, fields: [{ name: text, type: STRING, required: true }] }
policies:
  - { id: spam, name: Spam, penalty: LOW }
actions:
${actions.map((a) => `  - { id: ${a.id}, name: ${a.id}, kind: CUSTOMER_DEFINED_ACTION, itemTypeIds: [post], callback: { url: "${a.url}/${a.id}", headers: { Authorization: "Bearer bench" } }, body: { source: bench } }`).join('\n')}
rules:
  - id: all
    name: Everything
    status: LIVE
    itemTypeIds: [post]
    actionIds: [${actions.map((a) => a.id).join(', ')}]
    policyIds: [spam]
    conditionSet: { conjunction: AND, conditions: [{ input: { field: text }, signal: { type: TEXT_CONTAINS, args: { terms: [hello] } }, comparator: EQUALS, value: true }] }
`;

const children = [];

async function startWarden(label, actions, extraEnv = {}) {
  const dataDir = join(dir, label);
  const env = { ...baseEnv, WARDEN_DATA_DIR: dataDir, PORT: String(port), ...extraEnv };
  const file = join(dir, `${label}.yaml`);
  writeFileSync(file, config(actions));
  const cli = (...args) => {
    const r = spawnSync(process.execPath, ['dist/apps/server/bundle/cli.js', ...args], { env, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
    if (r.status !== 0) throw new Error(r.stderr);
    return r.stdout.trim().split('\n').pop();
  };
  cli('apply', file);
  const key = cli('api-key', 'create', '--org', 'bench');
  const profile = process.env.WARDEN_BENCH_PROFILE ? ['--cpu-prof', '--cpu-prof-dir', process.env.WARDEN_BENCH_PROFILE] : [];
  const child = spawn(process.execPath, [...profile, 'dist/apps/server/bundle/main.js'], { env, stdio: 'ignore' });
  children.push(child);
  for (;;) {
    try {
      if ((await fetch(`http://127.0.0.1:${port}/health/ready`)).ok) break;
    } catch {}
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    key,
    cli,
    stop: async () => {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
    },
  };
}

/** Posts items `from`..`to` in batches; returns the submit time of each item. */
async function submit(key, from, to, submitted = new Map()) {
  let next = from;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < to) {
        const start = next;
        next = Math.min(to, next + BATCH);
        const items = [];
        for (let n = start; n < next; n++) items.push({ id: `item-${n}`, typeId: 'post', data: { text: `hello ${n}` } });
        const at = performance.now();
        for (const item of items) submitted.set(item.id, at);
        const res = await fetch(`http://127.0.0.1:${port}/api/v1/items/async/`, {
          method: 'POST',
          headers: { 'x-api-key': key, 'content-type': 'application/json' },
          body: JSON.stringify({ items }),
        });
        if (res.status !== 202) throw new Error(`${res.status} ${await res.text()}`);
        await res.arrayBuffer();
      }
    }),
  );
  return submitted;
}

/** Posts PACED_RATE items/s in 10 batches a second. */
async function paced(key) {
  const submitted = new Map();
  const perTick = PACED_RATE / 10;
  const started = performance.now();
  for (let tick = 0; tick < PACED_SECONDS * 10; tick++) {
    await submit(key, tick * perTick, (tick + 1) * perTick, submitted);
    const due = started + (tick + 1) * 100;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
  }
  return submitted;
}

async function until(condition, what, timeoutMs = 300_000) {
  const started = performance.now();
  while (!condition()) {
    if (performance.now() - started > timeoutMs) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

const percentile = (values, p) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
};

const rows = [];
const a = await receiver();
const b = await receiver();
const hanging = await receiver({ hang: true });
let refusing = true;
const flaky = await receiver({ status: () => (refusing ? 503 : 200) });

try {
  {
    const warden = await startWarden('end-to-end', [{ id: 'notify', url: a.url }]);
    const started = performance.now();
    await submit(warden.key, 0, ITEMS);
    const accepted = performance.now();
    await until(() => a.arrivals.size >= ITEMS, 'the callbacks');
    const s = a.stats();
    rows.push([
      'end to end: submitted, evaluated, delivered (one callback per item)',
      Math.round(ITEMS / ((s.last - s.first) / 1000)),
      `${ITEMS} callbacks; first request to last callback ${((s.last - started) / 1000).toFixed(1)} s (items accepted in ${((accepted - started) / 1000).toFixed(1)} s)`,
    ]);
    await warden.stop();
    a.reset();
  }
  {
    const warden = await startWarden('redelivery', [{ id: 'notify', url: flaky.url }], { WARDEN_CALLBACK_RETRY_SCHEDULE: '1ms' });
    await submit(warden.key, 0, ITEMS);
    const dead = async () => {
      const res = await fetch(`http://127.0.0.1:${port}/api/v1/callbacks/deliveries?status=dead&limit=1`, { headers: { 'x-api-key': warden.key } });
      return (await res.json()).total;
    };
    for (;;) {
      if ((await dead()) >= ITEMS) break;
      await new Promise((r) => setTimeout(r, 1000));
    }
    refusing = false;
    flaky.reset();
    const started = performance.now();
    warden.cli('callbacks', 'redeliver', '--all-dead', '--org', 'bench');
    const requested = performance.now();
    await until(() => flaky.arrivals.size >= ITEMS, 'the redelivered callbacks');
    const s = flaky.stats();
    rows.push([
      'delivery alone: dead-lettered callbacks redelivered with `callbacks redeliver --all-dead`',
      Math.round(ITEMS / ((s.last - s.first) / 1000)),
      `${ITEMS} callbacks in ${((s.last - s.first) / 1000).toFixed(1)} s (the CLI recorded the redeliveries in ${((requested - started) / 1000).toFixed(1)} s)`,
    ]);
    await warden.stop();
  }
  for (const [label, second] of [
    ['paced, A and a second healthy receiver', b],
    ['paced, A and a hanging receiver', hanging],
  ]) {
    a.reset();
    const warden = await startWarden(label.replace(/\W+/g, '-'), [
      { id: 'notify', url: a.url },
      { id: 'other', url: second.url },
    ]);
    const submitted = await paced(warden.key);
    const total = PACED_RATE * PACED_SECONDS;
    await until(() => a.arrivals.size >= total, 'the callbacks to A');
    const latencies = [...a.arrivals].map(([id, at]) => at - submitted.get(id));
    const s = a.stats();
    rows.push([
      `${label}: callbacks to A (${PACED_RATE} items/s for ${PACED_SECONDS} s)`,
      Math.round(total / ((s.last - s.first) / 1000)),
      `A's latency p50 ${percentile(latencies, 50).toFixed(0)} ms, p99 ${percentile(latencies, 99).toFixed(0)} ms, max ${Math.max(...latencies).toFixed(0)} ms`,
    ]);
    await warden.stop();
  }
} finally {
  for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
  for (const r of [a, b, hanging, flaky]) await r.close();
  rmSync(dir, { recursive: true, force: true });
}

console.log(`Callbacks, embedded profile, ${ITEMS} items (node ${process.version})\n`);
console.log('| measurement | callbacks/s | note |');
console.log('|---|---|---|');
for (const [name, rate, note] of rows) console.log(`| ${name} | ${rate} | ${note} |`);
