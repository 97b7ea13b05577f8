// Investigate (issue 34, item 1): how fast the console's item and user pages answer when the
// history behind them is long: an item with 1,000 versions, a user who created 100,000 items.
// Each page asks the audit's history index for its newest few per section, so the answer should
// not grow with the history (target: p99 ≤ 100 ms). Not a test: prints a table.
// Usage: node bench/investigate.mjs [user's items, default 100000] [item versions, default 1000] [requests, default 200]
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { consoleSignIn, createConsoleUser, prepareDataDir, serverRoles } from './support/server-roles.mjs';

const ITEMS = Number(process.argv[2] ?? 100_000);
const VERSIONS = Number(process.argv[3] ?? 1_000);
const REQUESTS = Number(process.argv[4] ?? 200);
const BATCH = 1000;
const port = 44000 + Math.floor(Math.random() * 1000);
const url = `http://127.0.0.1:${port}`;
const dir = mkdtempSync(join(tmpdir(), 'warden-bench-investigate-'));
const env = {
  ...process.env,
  HOST: '127.0.0.1',
  WARDEN_LOG_LEVEL: 'warn',
  WARDEN_PUBLIC_URL: url,
  WARDEN_RATE_LIMIT_PER_SECOND: '1000000',
  WARDEN_RATE_LIMIT_BURST: '10000000',
};
const CONFIG = `
org: { id: bench, name: Bench }
itemTypes:
  - id: post
    name: Post
    kind: CONTENT
    fields:
      - { name: text, type: STRING, required: true }
      - { name: author, type: RELATED_ITEM, itemTypeIds: [user] }
    roles: { creator: author }
  - { id: user, name: User, kind: USER, fields: [{ name: name, type: STRING }], roles: { displayName: name } }
policies:
  - { id: spam, name: Spam, penalty: LOW }
actions:
  - { id: enqueue, name: Review, kind: ENQUEUE_TO_MRT }
rules:
  - id: never
    name: Never matches
    status: LIVE
    itemTypeIds: [post]
    actionIds: [enqueue]
    policyIds: [spam]
    conditionSet:
      conjunction: AND
      conditions:
        - { input: { field: text }, signal: { type: TEXT_CONTAINS, args: { terms: ["zz-never-zz"] } }, comparator: EQUALS, value: true }
queues:
  - { id: default, name: Default, isDefault: true }
`;

const percentile = (values, p) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
};
const round = (n) => Math.round(n * 10) / 10;

/** Every projection's lag (GET /metrics, refreshed every 5 s) at most a few positions, twice in a row: nothing left to catch up. */
async function untilQuiet() {
  let quietReadings = 0;
  for (const deadline = Date.now() + 1_800_000; quietReadings < 2;) {
    if (Date.now() > deadline) throw new Error('the projections did not catch up within 30 minutes');
    await new Promise((r) => setTimeout(r, 5_000));
    const metrics = await (await fetch(`${url}/metrics`)).text();
    const lags = metrics
      .split('\n')
      .filter((line) => line.startsWith('warden_projection_lag_positions{'))
      .map((line) => Number(line.slice(line.lastIndexOf(' ') + 1)));
    quietReadings = lags.length > 0 && Math.max(...lags) <= 10 ? quietReadings + 1 : 0;
  }
}

const servers = serverRoles(env);
const dataDir = join(dir, 'data');
try {
  const configFile = join(dir, 'bench.yaml');
  writeFileSync(configFile, CONFIG);
  const key = prepareDataDir(env, dataDir, configFile, 'bench');
  createConsoleUser(env, dataDir, 'bench', 'lead@bench.example', 'ANALYST');
  await servers.start('all', port, dataDir);
  const headers = { 'x-api-key': key, 'content-type': 'application/json' };
  const submit = async (items) => {
    const r = await fetch(`${url}/api/v1/items/async`, { method: 'POST', headers, body: JSON.stringify({ items }) });
    if (r.status !== 202) throw new Error(`submit ${r.status}: ${await r.text()}`);
  };

  // Populate: the user, their items in batches of 1,000, and one item sent again and again.
  const author = { id: 'u-big', typeId: 'user' };
  const started = performance.now();
  await submit([{ ...author, data: { name: 'Prolific' } }]);
  for (let i = 0; i < ITEMS; i += BATCH) {
    await submit(Array.from({ length: Math.min(BATCH, ITEMS - i) }, (_, j) => ({ id: `p-${i + j}`, typeId: 'post', data: { text: `post ${i + j}`, author } })));
  }
  let sent = 0;
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (sent < VERSIONS) {
        const v = sent++;
        await submit([{ id: 'p-versions', typeId: 'post', data: { text: `version ${v}`, author: { id: 'u-small', typeId: 'user' } } }]);
      }
    }),
  );
  const submittedS = (performance.now() - started) / 1000;

  const { cookie } = await consoleSignIn(url, 'lead@bench.example');
  const get = async (path) => {
    const r = await fetch(`${url}${path}`, { headers: { cookie } });
    if (r.status !== 200) throw new Error(`${path}: ${r.status} ${await r.text()}`);
    return r.json();
  };
  const ITEM = '/api/console/v1/investigate/items/post/p-versions';
  const USER = '/api/console/v1/investigate/users/user/u-big';
  // The history index is a background projection: wait until it holds the last version and the last item.
  for (const deadline = Date.now() + 900_000; ;) {
    if (Date.now() > deadline) throw new Error('the history index did not catch up within 15 minutes');
    try {
      const [item, user] = await Promise.all([get(ITEM), get(USER)]);
      const last = item.versions.entries[0]?.version === VERSIONS - 1 && item.evaluations[0]?.version === VERSIONS - 1;
      if (last && user.items.entries[0]?.id === `p-${ITEMS - 1}`) break;
    } catch {
      // 404 until the index names them
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  const indexedS = (performance.now() - started) / 1000;
  // Then every other projection: the audit chain (a background projection that yields to the
  // others) is still hashing the populated backlog when the index has caught up, and its batches
  // share the event loop with the requests timed below (QUIESCE=0 times them during that catch-up).
  if (process.env.QUIESCE !== '0') await untilQuiet();
  const quietS = (performance.now() - started) / 1000;
  const page = await get(`${USER}?before=${(await get(USER)).items.next}`);

  const rows = [];
  for (const [label, path] of [
    [`item page, ${VERSIONS.toLocaleString('en-US')} versions`, ITEM],
    [`user page, ${ITEMS.toLocaleString('en-US')} items`, USER],
    ['user page, second page of items (before=)', `${USER}?before=${page.items.next ?? ''}`.replace(/\?before=$/, '')],
  ]) {
    const times = [];
    for (let i = 0; i < 10; i++) await get(path); // warm-up
    for (let i = 0; i < REQUESTS; i++) {
      const t = performance.now();
      await get(path);
      times.push(performance.now() - t);
    }
    const loaded = await autocannon({ url, connections: 4, duration: 5, requests: [{ method: 'GET', path, headers: { cookie } }] });
    rows.push({
      request: label,
      'one at a time p50 ms': round(percentile(times, 50)),
      'p99 ms': round(percentile(times, 99)),
      '4 connections req/s': Math.round(loaded.requests.average),
      '4 conn p99 ms': loaded.latency.p99,
      non2xx: loaded.non2xx,
    });
  }
  console.log(
    `Investigate (GET /api/console/v1/investigate/…, an ANALYST; every answer also records the lookup in the access audit); ` +
      `populated in ${round(submittedS)} s, indexed after ${round(indexedS)} s, every projection caught up after ${round(quietS)} s; ${REQUESTS} requests one at a time, then 4 connections for 5 s`,
  );
  console.table(rows);
} finally {
  await servers.stopAll();
  rmSync(dir, { recursive: true, force: true });
}
