// Bulk actions (issue 34, item 3): how long one bulk action over N stored items takes end to end,
// from the console's request (POST /api/console/v1/bulk-actions) to the receiver holding N
// callbacks; with the moment the operation reports COMPLETED (every execution recorded) between.
// Usage: node bench/bulk-actions.mjs [sizes, comma-separated, default 2000,10000]
//
// One server process (the default `all` role) on a fresh data directory per size; the items are
// submitted first (POST /api/v1/items/async, 500 a request) and their evaluations waited for
// (no rule acts on them), so only the bulk action is timed. The action `remove` strikes (policy
// spam) and sends a callback to a receiver on loopback that answers 200 at once.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { consoleSignIn, createConsoleUser, prepareDataDir, serverRoles } from './support/server-roles.mjs';
import { POST_AND_USER_TYPES, SPAM_POLICY } from './support/strikes-config.mjs';

const SIZES = (process.argv[2] ?? '2000,10000').split(',').map(Number);
const dir = mkdtempSync(join(tmpdir(), 'warden-bench-bulk-'));

let callbacks = 0;
const receiver = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    callbacks++;
    res.writeHead(200).end();
  });
});
await new Promise((r) => receiver.listen(0, '127.0.0.1', r));
const receiverUrl = `http://127.0.0.1:${receiver.address().port}`;

const config = `
org: { id: bench, name: Bench }
${POST_AND_USER_TYPES}
policies:
${SPAM_POLICY}
actions:
  - { id: remove, name: Remove, kind: CUSTOMER_DEFINED_ACTION, itemTypeIds: [post], applyUserStrikes: true, callback: { url: ${receiverUrl}/hooks/remove } }
`;
const configFile = join(dir, 'bench.yaml');
writeFileSync(configFile, config);

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
async function until(probe, what, timeoutMs = 900_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

const rows = [];
for (const [index, size] of SIZES.entries()) {
  const port = 46000 + Math.floor(Math.random() * 1000);
  const url = `http://127.0.0.1:${port}`;
  const env = {
    ...process.env,
    HOST: '127.0.0.1',
    WARDEN_LOG_LEVEL: 'warn',
    WARDEN_PUBLIC_URL: url,
    WARDEN_OUTBOUND_ALLOWLIST: '127.0.0.0/8',
    WARDEN_RATE_LIMIT_PER_SECOND: '1000000',
    WARDEN_RATE_LIMIT_BURST: '10000000',
  };
  const dataDir = join(dir, `data-${index}`);
  const key = prepareDataDir(env, dataDir, configFile, 'bench');
  createConsoleUser(env, dataDir, 'bench', 'lead@bench.example', 'MODERATOR_MANAGER');
  const servers = serverRoles(env);
  try {
    await servers.start('all', port, dataDir);
    const ids = Array.from({ length: size }, (_, i) => `p${i}`);
    for (let i = 0; i < size; i += 500) {
      const items = ids.slice(i, i + 500).map((id, k) => ({ id, typeId: 'post', data: { text: 'hello', author: { id: `u${(i + k) % 97}`, typeId: 'user' } } }));
      const r = await fetch(`${url}/api/v1/items/async`, {
        method: 'POST',
        headers: { 'x-api-key': key, 'content-type': 'application/json' },
        body: JSON.stringify({ items }),
      });
      if (r.status !== 202) throw new Error(`submit: ${r.status} ${await r.text()}`);
    }
    const { cookie, csrfToken } = await consoleSignIn(url, 'lead@bench.example');
    const headers = { cookie, 'x-csrf-token': csrfToken, 'content-type': 'application/json' };
    const body = JSON.stringify({ actionId: 'remove', policyIds: ['spam'], reason: 'bench', items: ids.map((id) => ({ id, typeId: 'post' })) });
    // Every item stored (its ItemSubmitted appended before the 202) and evaluated: the preview sees them all.
    const previewStarted = performance.now();
    const preview = await (await fetch(`${url}/api/console/v1/bulk-actions/preview`, { method: 'POST', headers, body })).json();
    const previewMs = performance.now() - previewStarted;
    if (preview.existing !== size) throw new Error(`preview: ${JSON.stringify(preview)}`);
    await sleep(2000);
    const before = callbacks;
    const started = performance.now();
    const requested = await fetch(`${url}/api/console/v1/bulk-actions`, { method: 'POST', headers, body });
    if (requested.status !== 202) throw new Error(`request: ${requested.status} ${await requested.text()}`);
    const { bulkActionId } = await requested.json();
    const completed = await until(async () => {
      const view = await (await fetch(`${url}/api/console/v1/bulk-actions/${bulkActionId}`, { headers })).json();
      return view.status === 'COMPLETED' && performance.now();
    }, 'COMPLETED');
    const delivered = await until(() => callbacks - before >= size && performance.now(), `${size} callbacks`);
    rows.push({
      ids: size,
      preview_ms: Math.round(previewMs),
      completed_s: Math.round((completed - started) / 100) / 10,
      callbacks_delivered_s: Math.round((delivered - started) / 100) / 10,
      items_per_s: Math.round(size / ((delivered - started) / 1000)),
    });
  } finally {
    await servers.stopAll();
  }
}
receiver.close();
console.log('Bulk actions: one operation over N stored items, request to the last callback');
console.table(rows);
