// The audit chain (issue 16, chain v2 of issue 31): what it costs the log, and how fast an export is
// written, verified and anchored. Not a test: prints a table. Usage: node bench/audit.mjs [events, default 45000]
//  - appends/s on the embedded log alone, and with the chain projection following it live in the
//    same process (the chain is computed by a projection, never on the append path);
//  - events/s the chain projection links when it catches up on a log of that size;
//  - `warden audit export` (the CLI, a whole organization, and a range after the last event),
//    `warden audit verify` with the organization's JWKS (and an anchor), `warden audit anchor`.
import { randomUUID } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSqlite, ProjectionRunner, SqliteEventStore } from '../dist/libs/eventstore/src/index.js';
import { SqliteReadStore } from '../dist/libs/readstore/src/index.js';
import { auditChainProjection } from '../dist/libs/audit/src/chain/audit-chain.projection.js';

const TOTAL = Number(process.argv[2] ?? 45_000);
const WRITERS = 64;
const ORGS = ['bench', 'other-1', 'other-2'];

/** An item submission as the ingestion module stores it: a sealed envelope of about 300 bytes. */
const event = (i) => ({
  id: randomUUID(),
  type: 'ItemSubmitted',
  data: {
    item: { id: `item-${i}`, typeId: 'post' },
    version: 1,
    __personal: { v: 1, keyId: 'k', fields: ['data'], iv: 'AAAAAAAAAAAAAAAA', tag: 'B'.repeat(24), ct: 'C'.repeat(240) },
  },
  metadata: {
    orgId: ORGS[i % ORGS.length],
    correlationId: randomUUID(),
    causationId: null,
    actor: 'bench',
    occurredAt: new Date().toISOString(),
    schemaVersion: 1,
  },
});

async function appendAll(store) {
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: WRITERS }, async () => {
      for (;;) {
        const i = next++;
        if (i >= TOTAL) return;
        await store.append(`item-${ORGS[i % ORGS.length]}:post:item-${i}`, [event(i)], 'no_stream');
      }
    }),
  );
  return TOTAL / ((performance.now() - started) / 1000);
}

function openDir(dir) {
  const db = openSqlite(join(dir, 'warden.db'), { synchronous: 'full' });
  // The read models in their own file, as the service keeps them (storage.ts).
  const rdb = openSqlite(join(dir, 'read-models.db'), { synchronous: 'normal' });
  return { db, rdb, events: new SqliteEventStore(db), reads: new SqliteReadStore(rdb) };
}

const rows = [];
const round = (n) => Math.round(n).toLocaleString('en-US');

// 1. Appends alone.
let dir = mkdtempSync(join(tmpdir(), 'warden-bench-audit-'));
let s = openDir(dir);
rows.push(['appends, no chain (64 writers)', `${round(await appendAll(s.events))} events/s`]);
// 2. The chain catching up on that log.
let started = performance.now();
await new ProjectionRunner(auditChainProjection, s.events, s.reads).catchUp();
rows.push([`chain catch-up over ${TOTAL.toLocaleString('en-US')} events`, `${round(TOTAL / ((performance.now() - started) / 1000))} events/s`]);
await s.events.close();
s.db.close();
s.rdb.close();
rmSync(dir, { recursive: true, force: true });

// 3. Appends with the chain following live in the same process, until it has linked them all.
dir = mkdtempSync(join(tmpdir(), 'warden-bench-audit-'));
s = openDir(dir);
const runner = new ProjectionRunner(auditChainProjection, s.events, s.reads);
await runner.start();
started = performance.now();
const appendRate = await appendAll(s.events);
const head = await s.events.headPosition();
while (runner.checkpoint < head) await new Promise((r) => setTimeout(r, 5));
rows.push(['appends, chain following live (64 writers)', `${round(appendRate)} events/s`]);
rows.push(['… until every append is chained', `${round(TOTAL / ((performance.now() - started) / 1000))} events/s`]);
await runner.stop();
await s.events.close();
s.db.close();
s.rdb.close();
rmSync(dir, { recursive: true, force: true });

// 4. Export and verify through the CLI, on a data directory with an organization and a signed checkpoint.
dir = mkdtempSync(join(tmpdir(), 'warden-bench-audit-'));
const env = { ...process.env, WARDEN_DATA_DIR: dir, WARDEN_LOG_LEVEL: 'warn' };
const cli = (...args) => {
  const t = performance.now();
  const r = spawnSync(process.execPath, ['dist/apps/server/bundle/cli.js', ...args], { env, encoding: 'utf8' });
  if (r.status !== 0 && !(args.includes('--help-is-not-an-option') && r.status === 2)) throw new Error(`${args.join(' ')}: ${r.stdout}${r.stderr}`);
  return { seconds: (performance.now() - t) / 1000, stdout: r.stdout };
};
writeFileSync(
  join(dir, 'org.yaml'),
  'org: { id: bench, name: Bench }\nitemTypes:\n  - { id: post, name: Post, kind: CONTENT, fields: [{ name: text, type: STRING }] }\n',
);
cli('apply', join(dir, 'org.yaml'));
s = openDir(dir);
await appendAll(s.events);
await s.events.close();
s.db.close();
s.rdb.close();
const orgEvents = Math.ceil(TOTAL / ORGS.length);
const out = join(dir, 'export.ndjson');
const first = cli('audit', 'export', '--org', 'bench', '--out', out);
const second = cli('audit', 'export', '--org', 'bench', '--out', out);
const tail = cli('audit', 'export', '--org', 'bench', '--from', '2999-01-01T00:00:00Z', '--out', join(dir, 'tail.ndjson'));
// The organization's public keys, as GET /api/v1/signing_keys would give them (the bench runs no server).
const keysDb = openSqlite(join(dir, 'warden.db'), { synchronous: 'normal' });
const jwks = {
  keys: keysDb
    .prepare("SELECT data FROM events WHERE type = 'SigningKeyCreated' AND json_extract(metadata, '$.orgId') = 'bench'")
    .all()
    .map((row) => JSON.parse(row.data))
    .map((k) => ({ kty: 'OKP', crv: 'Ed25519', kid: k.kid, x: k.x })),
};
keysDb.close();
writeFileSync(join(dir, 'jwks.json'), JSON.stringify(jwks));
const verified = cli('audit', 'verify', out, '--jwks', join(dir, 'jwks.json'));
const anchors = [1, 2, 3].map(() => cli('audit', 'anchor', '--org', 'bench', '--out', join(dir, 'anchor.json')));
const anchored = cli('audit', 'verify', out, '--jwks', join(dir, 'jwks.json'), '--anchor', join(dir, 'anchor.json'));
const startup = cli('audit', 'verify', '--help-is-not-an-option');
rows.push([
  `audit export, first (chains ${TOTAL.toLocaleString('en-US')} events, exports ${orgEvents.toLocaleString('en-US')})`,
  `${first.seconds.toFixed(1)} s`,
]);
rows.push([
  'audit export, chain up to date',
  `${round(orgEvents / second.seconds)} events/s (${(statSync(out).size / 2 ** 20).toFixed(1)} MiB, ${second.seconds.toFixed(2)} s)`,
]);
rows.push(['audit export --from after the last event (seek)', `${tail.seconds.toFixed(2)} s`]);
rows.push(['audit verify --jwks', `${round(orgEvents / verified.seconds)} events/s (${verified.seconds.toFixed(2)} s)`]);
rows.push(['audit verify --jwks --anchor', `${round(orgEvents / anchored.seconds)} events/s (${anchored.seconds.toFixed(2)} s)`]);
const anchorSeconds = Math.min(...anchors.map((a) => a.seconds));
rows.push([
  `audit anchor (chain of ${TOTAL.toLocaleString('en-US')} events up to date)`,
  `${anchorSeconds.toFixed(2)} s a run, ${(1 / anchorSeconds).toFixed(1)} anchors/s`,
]);
rows.push(['CLI start-up alone (a usage error)', `${startup.seconds.toFixed(2)} s`]);
rmSync(dir, { recursive: true, force: true });

console.log(`Audit chain, ${TOTAL.toLocaleString('en-US')} events over ${ORGS.length} organizations (node ${process.version}; CLI runs include start-up)\n`);
console.log('| measure | result |');
console.log('|---|---|');
for (const [k, v] of rows) console.log(`| ${k} | ${v} |`);
