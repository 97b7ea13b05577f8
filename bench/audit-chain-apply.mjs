// What the audit chain v2 projection costs per event on the read-model thread, in-process and
// single-threaded: the chain's hashing alone (canonical JSON + SHA-256 + link), the projection's
// apply through a unit of work, and the read store's commit of the batch's writes. Not a test:
// prints a table. Times are the thread's CPU (process.threadCpuUsage), steadier than the clock on
// a shared machine. Events are shaped like a spread's (six types, about 6 an item, three orgs).
// Usage: node bench/audit-chain-apply.mjs [events, default 20000] [rounds, default 5] (after `npm run build`).
// WARDEN_BENCH_DIST=<dir>[,<dir>…] times other builds' dist (e.g. a copy of the previous commit's,
// beside its package.json and a link to node_modules), a row each, their rounds alternated in one
// process so that a shared machine's load falls on each alike.
// BENCH_INDEXES=<n> keeps only the first n indexes the projection declares.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const DISTS = (process.env.WARDEN_BENCH_DIST ?? new URL('../dist', import.meta.url).pathname).split(',');
/** A build's modules the bench uses. */
async function build(dir) {
  const dist = pathToFileURL(resolve(dir)).href;
  return {
    dir,
    ...(await import(`${dist}/libs/eventstore/src/index.js`)),
    ...(await import(`${dist}/libs/eventstore/src/projection/unit-of-work.js`)),
    ...(await import(`${dist}/libs/readstore/src/index.js`)),
    ...(await import(`${dist}/libs/audit/src/chain/audit-chain.projection.js`)),
    ...(await import(`${dist}/libs/audit/src/chain/audit-chain.js`)),
  };
}
const builds = [];
for (const dir of DISTS) builds.push(await build(dir));

const TOTAL = Number(process.argv[2] ?? 20_000);
const ROUNDS = Number(process.argv[3] ?? 5);
/** Events per batch: about what the runner reads at once while catching up (ProjectionRunner). */
const BATCH = 500;
const ORGS = ['bench', 'other-1', 'other-2'];

const sealed = () => ({ v: 1, keyId: 'k-2026', fields: ['data', 'user'], iv: 'AAAAAAAAAAAAAAAA', tag: 'B'.repeat(22), ct: 'C'.repeat(240) });
const at = (i) => new Date(Date.UTC(2026, 10, 30) + i * 3).toISOString();

/** The i-th event, its type chosen as a spread's item produces them. */
function event(i) {
  const item = Math.floor(i / 6);
  const orgId = ORGS[item % ORGS.length];
  const ref = { id: `item-${item}`, typeId: 'post' };
  const kind = i % 6;
  const [type, stream, data] = [
    ['ItemSubmitted', `item-${orgId}:post:item-${item}`, { item: ref, version: 1, creator: { id: `user-${item % 97}`, typeId: 'user' }, __personal: sealed() }],
    [
      'ItemEvaluated',
      `item-${orgId}:post:item-${item}`,
      {
        item: ref,
        version: 1,
        rules: [
          { ruleId: 'r-spam', version: 3, matched: true, score: 0.93, actions: ['quarantine'] },
          { ruleId: 'r-links', version: 1, matched: false, score: 0.1, actions: [] },
          { ruleId: 'r-words', version: 7, matched: false, score: 0, actions: [] },
        ],
        signals: { 'text.language': 'en', 'text.length': 412, 'pdq.distance': -1 },
        durationMs: 1.734,
      },
    ],
    [
      'ActionCallbackRequested',
      `item-${orgId}:post:item-${item}`,
      { item: ref, actionId: 'quarantine', ruleIds: ['r-spam'], policyIds: ['p-1'], deliveryId: randomUUID() },
    ],
    [
      'UserStrikesApplied',
      `user-${orgId}:user-${item % 97}`,
      { user: { id: `user-${item % 97}`, typeId: 'user' }, strikes: 1, total: (item % 11) + 1, ruleId: 'r-spam' },
    ],
    [
      'CallbackDeliveryRequested',
      `delivery-${orgId}:${item}`,
      {
        deliveryId: `d-${item}`,
        destination: 'https://receiver.example.test/callbacks/quarantine',
        attempt: 1,
        body: { item: ref, action: 'quarantine', note: 'Åsa said "héllo" \u2028 ok' },
      },
    ],
    ['CallbackDelivered', `delivery-${orgId}:${item}`, { deliveryId: `d-${item}`, status: 200, durationMs: 12, attempt: 1 }],
  ][kind];
  return {
    id: randomUUID(),
    type,
    streamName: stream,
    revision: kind % 3,
    position: i + 1,
    data,
    metadata: { orgId, correlationId: randomUUID(), causationId: kind === 0 ? null : randomUUID(), actor: 'api-key:k1', occurredAt: at(i), schemaVersion: 1 },
  };
}

const events = Array.from({ length: TOTAL }, (_, i) => event(i));

/** The thread's CPU in µs. */
const cpu = () => {
  const { user, system } = process.threadCpuUsage();
  return user + system;
};

function hashingOnly({ linkOf }) {
  let link = 'genesis';
  const started = cpu();
  for (const e of events) link = linkOf(link, e);
  return (cpu() - started) / TOTAL;
}

async function projection({ openSqlite, SqliteReadStore, applyEvents, auditChainProjection }) {
  const dir = mkdtempSync(join(tmpdir(), 'warden-bench-chain-'));
  const db = openSqlite(join(dir, 'read-models.db'), { synchronous: 'normal' });
  const store = new SqliteReadStore(db, { readsShareTurn: true });
  for (const { collection, fields } of (auditChainProjection.indexes ?? []).slice(0, Number(process.env.BENCH_INDEXES ?? Infinity)))
    await store.ensureIndex(collection, fields);
  let apply = 0;
  let commit = 0;
  let writes = 0;
  for (let from = 0; from < TOTAL; from += BATCH) {
    const batch = events.slice(from, from + BATCH);
    let t = cpu();
    const { uow } = await applyEvents(auditChainProjection, batch, store);
    apply += cpu() - t;
    const w = uow.writes();
    writes += w.length;
    t = cpu();
    await store.commit(w, { projection: auditChainProjection.name, from: from === 0 ? 0 : batch[0].position - 1, to: batch.at(-1).position });
    commit += cpu() - t;
  }
  await store.close();
  db.close();
  rmSync(dir, { recursive: true, force: true });
  return { apply: apply / TOTAL, commit: commit / TOTAL, writes: writes / TOTAL };
}

const runs = builds.map(() => []);
for (let r = 0; r < ROUNDS; r++) for (const [i, b] of builds.entries()) runs[i].push({ hashing: hashingOnly(b), ...(await projection(b)) });
const median = (xs) => xs.toSorted((a, b) => a - b)[Math.floor(xs.length / 2)];
const fmt = (x) => x.toFixed(2);
console.log(`audit chain v2 over ${TOTAL.toLocaleString('en-US')} events, batches of ${BATCH}, median of ${ROUNDS} (µs of thread CPU per event)\n`);
console.log('| build | hashing only (linkOf) | apply (unit of work) | commit | apply + commit | writes per event |');
console.log('|---|---|---|---|---|---|');
for (const [i, b] of builds.entries()) {
  const m = (k) => median(runs[i].map((r) => r[k]));
  console.log(
    `| ${b.dir} | ${fmt(m('hashing'))} | ${fmt(m('apply'))} | ${fmt(m('commit'))} | ${fmt(median(runs[i].map((r) => r.apply + r.commit)))} | ${fmt(m('writes'))} |`,
  );
}
