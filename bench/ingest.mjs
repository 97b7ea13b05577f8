// Items/s accepted by POST /api/v1/items/async/ (batches of 100) and items/s fully evaluated,
// with 20 text-signal rules on the item type, on the embedded profile; and, in the same run, the
// requests/s of a bare Fastify JSON echo server as the ceiling. Usage: node bench/ingest.mjs [items]
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import Fastify from 'fastify';
import { prepareDataDir, serverRoles } from './support/server-roles.mjs';
import { textSignalRules, WORDS } from './support/text-rules.mjs';

const ITEMS = Number(process.argv[2] ?? 20_000);
const BATCH = 100;
const CONCURRENCY = 8;
const port = 40000 + Math.floor(Math.random() * 1000);
const dir = mkdtempSync(join(tmpdir(), 'warden-bench-ingest-'));
const env = { ...process.env, WARDEN_DATA_DIR: dir, PORT: String(port), HOST: '127.0.0.1', WARDEN_LOG_LEVEL: 'warn', WARDEN_RATE_LIMIT_PER_SECOND: '0' };

const rules = textSignalRules({ bankId: 'spam' });
writeFileSync(
  join(dir, 'bench.yaml'),
  `org: { id: bench, name: Bench }
itemTypes:
  - { id: post, name: Post, kind: CONTENT, fields: [{ name: text, type: STRING, required: true }, { name: title, type: STRING }] }
actions:
  - { id: review, name: Review, kind: ENQUEUE_TO_MRT, itemTypeIds: [post] }
textBanks:
  - { id: spam, name: Spam, terms: [viagra, casino, lottery], regexes: ['\\bwin\\s+\\$\\d+'] }
rules:
${rules}
`,
);

async function drive(url, headers, makeBody, requests) {
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < requests) {
        const i = next++;
        const res = await fetch(url, { method: 'POST', headers, body: makeBody(i) });
        if (res.status >= 300) throw new Error(`${res.status} ${await res.text()}`);
        await res.arrayBuffer();
      }
    }),
  );
  return (performance.now() - started) / 1000;
}

const batchBody = (b) =>
  JSON.stringify({
    items: Array.from({ length: BATCH }, (_, i) => {
      const n = b * BATCH + i;
      return {
        id: `item-${n}`,
        typeId: 'post',
        data: { text: `hello ${WORDS[n % 10]} ${n % 1000} and some more ordinary words here`, title: n % 7 ? 'a title' : 'win $100 now' },
      };
    }),
  });

const rows = [];
const requests = ITEMS / BATCH;
const servers = serverRoles(env);

/** A fresh data directory with the benchmark organization configured; returns an API key. */
const prepare = (dataDir) => prepareDataDir(env, dataDir, join(dir, 'bench.yaml'), 'bench');

/** Polls the log until every item is evaluated. */
async function allEvaluated(dataDir) {
  const db = new Database(join(dataDir, 'warden.db'), { readonly: true });
  const evaluatedCount = () => db.prepare("SELECT count(*) AS n FROM events WHERE type = 'ItemEvaluated'").get().n;
  while (evaluatedCount() < ITEMS) await new Promise((r) => setTimeout(r, 20));
  db.close();
}

/** One run on a fresh data directory: the roles given, items posted to the first. */
async function scenario(label, roles) {
  const dataDir = join(dir, label.replace(/\W+/g, '-'));
  const key = prepare(dataDir);
  const children = [];
  for (const [i, role] of roles.entries()) children.push(await servers.start(role, port + 2 + i, dataDir));
  const start = performance.now();
  const acceptSeconds = await drive(
    `http://127.0.0.1:${port + 2}/api/v1/items/async`,
    { 'x-api-key': key, 'content-type': 'application/json' },
    batchBody,
    requests,
  );
  await allEvaluated(dataDir);
  const evalSeconds = (performance.now() - start) / 1000;
  for (const c of children) c.kill('SIGTERM');
  await new Promise((r) => setTimeout(r, 500));
  rows.push([
    `${label}: items accepted (POST /api/v1/items/async/, 100 per request)`,
    Math.round(ITEMS / acceptSeconds),
    `${(requests / acceptSeconds).toFixed(0)} requests/s`,
  ]);
  rows.push([
    `${label}: items fully evaluated (20 rules; first request to last ItemEvaluated)`,
    Math.round(ITEMS / evalSeconds),
    `${evalSeconds.toFixed(1)} s for ${ITEMS}`,
  ]);
}

/** Items accepted first by an api process; then one worker alone evaluates the backlog. */
async function drain(label) {
  const dataDir = join(dir, 'drain');
  const key = prepare(dataDir);
  const api = await servers.start('api', port + 10, dataDir);
  await drive(`http://127.0.0.1:${port + 10}/api/v1/items/async`, { 'x-api-key': key, 'content-type': 'application/json' }, batchBody, requests);
  api.kill('SIGTERM');
  await new Promise((r) => api.once('exit', r));
  const start = performance.now();
  const worker = await servers.start('worker', port + 11, dataDir);
  await allEvaluated(dataDir);
  const seconds = (performance.now() - start) / 1000;
  worker.kill('SIGTERM');
  await new Promise((r) => setTimeout(r, 500));
  rows.push([`${label}: backlog evaluated by one worker (including its start)`, Math.round(ITEMS / seconds), `${seconds.toFixed(1)} s for ${ITEMS}`]);
}

try {
  if (process.env.WARDEN_BENCH_ONLY_DRAIN) {
    await drain('worker alone');
    throw new Error('done');
  }
  await scenario('one process (WARDEN_ROLE=all)', ['all']);
  await scenario('api + worker processes on one data directory', ['api', 'worker']);
  await drain('worker alone');

  const echo = Fastify();
  echo.post('/echo', async (req) => req.body);
  await echo.listen({ port: port + 1, host: '127.0.0.1' });
  const echoSeconds = await drive(`http://127.0.0.1:${port + 1}/echo`, { 'content-type': 'application/json' }, batchBody, requests);
  await echo.close();
  rows.push(['Ceiling: bare Fastify JSON echo of the same bodies', Math.round(ITEMS / echoSeconds), `${(requests / echoSeconds).toFixed(0)} requests/s`]);
} catch (error) {
  if (error.message !== 'done') throw error;
} finally {
  await servers.stopAll();
  rmSync(dir, { recursive: true, force: true });
}

console.log(`Ingestion and evaluation, embedded profile, ${ITEMS} items, ${CONCURRENCY} concurrent clients (node ${process.version})\n`);
console.log('| measurement | items/s | note |');
console.log('|---|---|---|');
for (const [name, rate, note] of rows) console.log(`| ${name} | ${rate} | ${note} |`);
