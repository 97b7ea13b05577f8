// Partial fetches/s: items sent with typeSchemaVariant "partial" whose rule needs a field they lack,
// each making Warden fetch the whole item from a customer endpoint on loopback that answers after
// 50 ms (docs/partial-items.md). Usage: node bench/partial-items.mjs [items] (after npm run build)
//
// Per run: a fresh data directory, the endpoint's maxConcurrency as given, no cache (every item is
// fetched). Items are posted as fast as they are accepted; fetched items/s is counted from the first
// request the endpoint received to the last item fetched (warden_partial_item_fetches_total).
import { createServer } from 'node:http';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { prepareDataDir, serverRoles } from './support/server-roles.mjs';
import { UNPOPULAR_SPAM_RULE_AND_QUEUE } from './support/partial-items-config.mjs';

const ITEMS = Number(process.argv[2] ?? 2000);
const DELAY_MS = 50;
const BATCH = 200;
const env = { ...process.env, HOST: '127.0.0.1', WARDEN_LOG_LEVEL: 'warn', WARDEN_RATE_LIMIT_PER_SECOND: '0', WARDEN_OUTBOUND_ALLOWLIST: '127.0.0.0/8' };

/** The customer's endpoint: every item asked for, whole, after DELAY_MS. */
async function endpoint() {
  const stats = { requests: 0, items: 0, first: 0, inFlight: 0, maxInFlight: 0 };
  const server = createServer({ keepAliveTimeout: 60_000 }, (req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const { items } = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      stats.requests++;
      stats.items += items.length;
      stats.first ||= performance.now();
      stats.maxInFlight = Math.max(stats.maxInFlight, ++stats.inFlight);
      setTimeout(() => {
        stats.inFlight--;
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ items: items.map((i) => ({ ...i, typeVersion: '1', data: { text: 'spam', likes: 1 } })) }));
      }, DELAY_MS);
    });
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${server.address().port}/items`, stats, close: () => new Promise((r) => server.close(r)) };
}

const config = (url, maxConcurrency) => `
org: { id: bench, name: Bench }
itemTypes:
  - id: post
    name: Post
    kind: CONTENT
    fields:
      - { name: text, type: STRING, required: true }
      - { name: likes, type: NUMBER, required: true }
${UNPOPULAR_SPAM_RULE_AND_QUEUE}
partialItems: { url: "${url}", timeoutMs: 5000, cacheSeconds: 0, maxConcurrency: ${maxConcurrency}, retries: 0 }
`;

async function fetchedCount(base) {
  const text = await (await fetch(`${base}/metrics`)).text();
  return Number(/^warden_partial_item_fetches_total\{outcome="fetched"\} (\d+)/m.exec(text)?.[1] ?? 0);
}

async function run(maxConcurrency) {
  const dir = mkdtempSync(join(tmpdir(), 'warden-bench-partial-'));
  const customer = await endpoint();
  const roles = serverRoles(env);
  try {
    const file = join(dir, 'org.yaml');
    writeFileSync(file, config(customer.url, maxConcurrency));
    const key = prepareDataDir(env, join(dir, 'data'), file, 'bench');
    const port = 42000 + Math.floor(Math.random() * 1000);
    await roles.start('all', port, join(dir, 'data'));
    const base = `http://127.0.0.1:${port}`;
    const started = performance.now();
    for (let i = 0; i < ITEMS; i += BATCH) {
      const items = Array.from({ length: Math.min(BATCH, ITEMS - i) }, (_, j) => ({
        id: `p${i + j}`,
        typeId: 'post',
        typeSchemaVariant: 'partial',
        data: { text: 'buy spam' },
      }));
      const res = await fetch(`${base}/api/v1/items/async/`, {
        method: 'POST',
        headers: { 'x-api-key': key, 'content-type': 'application/json' },
        body: JSON.stringify({ items }),
      });
      if (res.status !== 202) throw new Error(`submit answered ${res.status}: ${await res.text()}`);
    }
    const deadline = Date.now() + 600_000;
    let fetched = 0;
    while ((fetched = await fetchedCount(base)) < ITEMS) {
      if (Date.now() > deadline) throw new Error(`only ${fetched} of ${ITEMS} fetched`);
      await new Promise((r) => setTimeout(r, 50));
    }
    const done = performance.now();
    const s = customer.stats;
    return {
      maxConcurrency,
      items: ITEMS,
      requests: s.requests,
      perRequest: (s.items / s.requests).toFixed(1),
      maxInFlight: s.maxInFlight,
      perSecond: Math.round(ITEMS / ((done - s.first) / 1000)),
      wall: ((done - started) / 1000).toFixed(1),
    };
  } finally {
    await roles.stopAll();
    await customer.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const rows = [];
for (const maxConcurrency of [1, 8, 32]) rows.push(await run(maxConcurrency));
console.log(`\nPartial fetches with a ${DELAY_MS} ms customer endpoint, ${ITEMS} partial items each needing a fetch (no cache)\n`);
console.log('| maxConcurrency | items | requests | items/request | most in flight | fetched items/s | wall s |');
console.log('|---|---|---|---|---|---|---|');
for (const r of rows) console.log(`| ${r.maxConcurrency} | ${r.items} | ${r.requests} | ${r.perRequest} | ${r.maxInFlight} | ${r.perSecond} | ${r.wall} |`);
