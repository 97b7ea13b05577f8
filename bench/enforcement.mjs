// Enforcement (issue 14): strikes applied per second, with the striking items spread over many
// users and with all of them on one user (every application contends for one user's stream); and
// GET /api/v1/user_scores latency with 1,000,000 scored users.
// Usage: node bench/enforcement.mjs [scored users, default 1000000] [strikes, spread run, default 5000]
//   [strikes, one-user run, default 300]
//
// Strikes: an api process and a worker on one data directory (operations.md's layout when
// accepting must keep a core of its own). Every post matches a LIVE rule whose action (a callback
// to a receiver here) has applyUserStrikes on a policy with userStrikeCount 1, and thresholds at 3
// and 10 strikes fire callback actions on the USER item, so thresholds are in the path. Posts go in
// requests of 100 (POST /api/v1/items/async). The time runs from the first accepted request to the
// moment the benchmark sees the last UserStrikesApplied in the log (read-only SQLite connection on
// the data directory, polled every 10 ms by position, so the poll reads only new rows).
//
// Scores: filling 1,000,000 users through the API would take hours on 2 cores. The users the
// strike runs created are real (their user_scores documents came through the projection); the
// rest are written into the embedded read store while the server is stopped, each document made
// by the built projection itself (dist/…/user-scores.projection.js) from synthetic ItemSubmitted
// and ActionCallbackRequested events, so it has the exact shape and id the projection writes.
// Then autocannon asks for random users, present and absent, over a fixed number of connections.
import { readFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import Database from 'better-sqlite3';
import { userScoresProjection } from '../dist/libs/enforcement/src/scores/user-scores.projection.js';
import { USER_SCORES, userScoreDocId } from '../dist/libs/enforcement/src/scores/user-scores.read-model.js';
import { prepareDataDir, serverRoles } from './support/server-roles.mjs';
import { strikesConfig } from './support/strikes-config.mjs';

const USERS = Number(process.argv[2] ?? 1_000_000);
const STRIKES = Number(process.argv[3] ?? 5_000);
// Every application to one user re-reads that user's whole stream (no snapshot), so the one-user
// run slows down as the stream grows: it gets its own, smaller count.
const SOLO_STRIKES = Number(process.argv[4] ?? 300);
const BATCH = 100;
const CONCURRENCY = 8;
/** Items per user in the spread run: every user crosses both thresholds. */
const PER_USER = 10;
const SCORE_CONNECTIONS = 32;
const SCORE_SECONDS = Number(process.env.WARDEN_BENCH_SECONDS ?? 10);
const port = 45000 + Math.floor(Math.random() * 1000);
const url = `http://127.0.0.1:${port}`;
const dir = mkdtempSync(join(tmpdir(), 'warden-bench-enforcement-'));
const env = {
  ...process.env,
  HOST: '127.0.0.1',
  WARDEN_LOG_LEVEL: 'warn',
  WARDEN_PUBLIC_URL: url,
  WARDEN_OUTBOUND_ALLOWLIST: '127.0.0.0/8',
  WARDEN_RATE_LIMIT_PER_SECOND: '1000000',
  WARDEN_RATE_LIMIT_BURST: '10000000',
};

/** How long a run waits for its striking actions' callbacks after the last strike. */
const CALLBACK_WAIT_MS = 180_000;

// A receiver that counts callbacks by path (remove, warn, ban) and answers 200 at once.
const received = new Map();
const receiver = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    received.set(req.url, (received.get(req.url) ?? 0) + 1);
    res.writeHead(200).end();
  });
});
await new Promise((r) => receiver.listen(0, '127.0.0.1', r));
const receiverUrl = `http://127.0.0.1:${receiver.address().port}`;

const configFile = join(dir, 'bench.yaml');
writeFileSync(configFile, strikesConfig(receiverUrl));

const round = (n, digits = 2) => Math.round(n * 10 ** digits) / 10 ** digits;
const servers = serverRoles(env);
const dataDir = join(dir, 'data');
const key = prepareDataDir(env, dataDir, configFile, 'bench');
const headers = { 'x-api-key': key, 'content-type': 'application/json' };

/** Reads the log from where it last stopped; counts events of the given types. */
function logReader() {
  const db = new Database(join(dataDir, 'warden.db'), { readonly: true });
  const newer = db.prepare('SELECT position, type FROM events WHERE position > ? ORDER BY position');
  let position = 0;
  const counts = new Map();
  return {
    poll() {
      for (const row of newer.iterate(position)) {
        position = row.position;
        counts.set(row.type, (counts.get(row.type) ?? 0) + 1);
      }
      return counts;
    },
    close: () => db.close(),
  };
}

/**
 * Posts `strikes` spam posts in requests of BATCH over CONCURRENCY clients, the i-th by creatorOf(i),
 * and waits for every UserStrikesApplied; the row of the run, with the rate over its last quarter
 * (from 75 % of the strikes applied to 100 %) to show whether it slows down.
 */
async function strikeRun(label, prefix, strikes, creatorOf, users) {
  const log = logReader();
  const before = log.poll().get('UserStrikesApplied') ?? 0;
  const crossedBefore = log.poll().get('UserStrikeThresholdCrossed') ?? 0;
  const removedBefore = received.get('/remove') ?? 0;
  const requests = Math.ceil(strikes / BATCH);
  let next = 0;
  let firstAccepted = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < requests) {
        const b = next++;
        const items = Array.from({ length: Math.min(BATCH, strikes - b * BATCH) }, (_, i) => {
          const n = b * BATCH + i;
          return { id: `${prefix}-${n}`, typeId: 'post', data: { text: `buy spam now ${n}`, author: { id: creatorOf(n), typeId: 'user' } } };
        });
        const response = await fetch(`${url}/api/v1/items/async`, { method: 'POST', headers, body: JSON.stringify({ items }) });
        if (response.status !== 202) throw new Error(`${response.status} ${await response.text()}`);
        await response.arrayBuffer();
        firstAccepted ||= performance.now();
      }
    }),
  );
  const acceptedAt = performance.now();
  let applied;
  let threeQuarters = 0;
  for (;;) {
    applied = (log.poll().get('UserStrikesApplied') ?? 0) - before;
    if (!threeQuarters && applied >= strikes * 0.75) threeQuarters = performance.now();
    if (applied >= strikes) break;
    await new Promise((r) => setTimeout(r, 10));
  }
  const lastApplied = performance.now();
  const crossed = (log.poll().get('UserStrikeThresholdCrossed') ?? 0) - crossedBefore;
  log.close();
  const callbacksAtLastStrike = (received.get('/remove') ?? 0) - removedBefore;
  // Every striking action's callback carries the count after it: wait until all of them arrived
  // (at most CALLBACK_WAIT_MS; a receiver hit twice by a retry counts twice, so this is a bound).
  const waitUntil = performance.now() + CALLBACK_WAIT_MS;
  while ((received.get('/remove') ?? 0) - removedBefore < strikes && performance.now() < waitUntil) await new Promise((r) => setTimeout(r, 10));
  const callbacks = (received.get('/remove') ?? 0) - removedBefore;
  const callbacksSeconds = (performance.now() - firstAccepted) / 1000;
  const seconds = (lastApplied - firstAccepted) / 1000;
  return {
    run: label,
    users,
    strikes: applied,
    thresholds_crossed: crossed,
    accepted_s: round((acceptedAt - started) / 1000),
    first_accepted_to_last_strike_s: round(seconds),
    strikes_per_s: Math.round(applied / seconds),
    last_quarter_per_s: Math.round(strikes / 4 / ((lastApplied - threeQuarters) / 1000)),
    // Callbacks run behind strikes: how many had arrived when the last strike was recorded, and
    // the rate from the first accepted request to the last of them.
    callbacks_at_last_strike: callbacksAtLastStrike,
    callbacks_received: callbacks,
    callbacks_per_s: Math.round(callbacks / callbacksSeconds),
  };
}

/**
 * Writes the user_scores documents of `count` synthetic users (`s-<n>`) into the embedded read
 * store, each made by the projection from events it would receive: 1–15 items submitted, and for
 * one user in five 1–3 of them actioned with `remove` under a LOW policy. No position: the
 * documents stand for events this log does not have (a rebuild would drop them).
 */
async function writeSyntheticScores(count) {
  const db = new Database(join(dataDir, 'read-models.db'));
  db.pragma('journal_mode = WAL');
  // The read store's table for the collection (SqliteReadStore: one table per collection, created on first write).
  db.exec(`CREATE TABLE IF NOT EXISTS "rm/${USER_SCORES}" (id TEXT PRIMARY KEY, doc TEXT NOT NULL, position INTEGER) WITHOUT ROWID`);
  const insert = db.prepare(`INSERT OR REPLACE INTO "rm/${USER_SCORES}" (id, doc, position) VALUES (?, ?, NULL)`);
  const metadata = { orgId: 'bench' };
  // One user's documents at a time (the user's counts and their actioned items'); only the user's are kept.
  let docs = new Map();
  const ctx = {
    get: async (collection, id) => docs.get(`${collection}/${id}`),
    put: (collection, id, next) => docs.set(`${collection}/${id}`, next),
    delete: () => {},
  };
  const CHUNK = 20_000;
  for (let from = 0; from < count; from += CHUNK) {
    const rows = [];
    for (let n = from; n < Math.min(count, from + CHUNK); n++) {
      const creator = { id: `s-${n}`, typeId: 'user' };
      docs = new Map();
      const submissions = 1 + ((n * 7919) % 15);
      for (let i = 0; i < submissions; i++) {
        await userScoresProjection.apply({ type: 'ItemSubmitted', revision: 0, metadata, data: { itemId: `s-${n}-${i}`, typeId: 'post', creator } }, ctx);
      }
      const actioned = n % 5 === 0 ? Math.min(submissions, 1 + (n % 3)) : 0;
      for (let i = 0; i < actioned; i++) {
        await userScoresProjection.apply(
          {
            type: 'ActionCallbackRequested',
            streamName: `item_evaluation-bench:post:s-${n}-${i}:0`,
            revision: 0,
            metadata,
            data: {
              deliveryId: `s-${n}-${i}-remove`,
              item: { id: `s-${n}-${i}`, typeId: 'post' },
              action: { id: 'remove' },
              policies: [{ id: 'spam', name: 'Spam', penalty: 'LOW' }],
              creator,
              content: `s-${n}-${i}@0`,
            },
          },
          ctx,
        );
      }
      rows.push([userScoreDocId('bench', creator), JSON.stringify(docs.get(`${USER_SCORES}/${userScoreDocId('bench', creator)}`))]);
    }
    db.transaction(() => {
      for (const [id, json] of rows) insert.run(id, json);
    })();
  }
  db.pragma('wal_checkpoint(TRUNCATE)');
  db.close();
}

function scoredUsers() {
  const db = new Database(join(dataDir, 'read-models.db'), { readonly: true });
  const n = db.prepare(`SELECT count(*) AS n FROM "rm/${USER_SCORES}"`).get().n;
  db.close();
  return n;
}

/** Resident and peak resident memory of a process, MiB (Linux /proc). */
function memory(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (field) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)[1]);
  return { rss_mib: Math.round(kib('VmRSS') / 1024), peak_rss_mib: Math.round(kib('VmHWM') / 1024) };
}

/** GET /api/v1/user_scores over SCORE_CONNECTIONS connections for `seconds`: random synthetic, real and absent users. */
async function scoreRun(seconds, realIds, syntheticCount) {
  const pick = () => {
    const r = Math.random();
    if (r < 0.1) return realIds[Math.floor(Math.random() * realIds.length)];
    if (r < 0.7) return `s-${Math.floor(Math.random() * syntheticCount)}`;
    return `absent-${Math.floor(Math.random() * 1e9)}`;
  };
  const result = await autocannon({
    url,
    connections: SCORE_CONNECTIONS,
    duration: seconds,
    requests: [
      { method: 'GET', headers: { 'x-api-key': key }, setupRequest: (request) => ({ ...request, path: `/api/v1/user_scores?typeId=user&id=${pick()}` }) },
    ],
  });
  if (result.non2xx || result.errors) throw new Error(`user_scores: ${result.non2xx} non-2xx, ${result.errors} errors`);
  return {
    requests: result.requests.total,
    requests_per_s: Math.round(result.requests.average),
    p50_ms: result.latency.p50,
    p99_ms: result.latency.p99,
    max_ms: result.latency.max,
  };
}

const wallStarted = performance.now();
try {
  // Strikes: a spread of users, then one user with every strike.
  let api = await servers.start('api', port, dataDir);
  let worker = await servers.start('worker', port + 1, dataDir);
  const spreadUsers = STRIKES / PER_USER;
  const strikeRows = [];
  console.log(`Strikes applied (api + worker; striking posts ${BATCH} per request, ${CONCURRENCY} clients; thresholds at 3 and 10)`);
  strikeRows.push(await strikeRun('spread', 'spread', STRIKES, (n) => `u-${n % spreadUsers}`, spreadUsers));
  console.log(JSON.stringify(strikeRows[0]));
  strikeRows.push(await strikeRun('one user', 'solo', SOLO_STRIKES, () => 'solo', 1));
  console.table(strikeRows);
  console.log('Callbacks received before the scores run:', Object.fromEntries(received));

  // Scores: the real users' documents came through the projection; fill the rest up to USERS.
  await servers.stop(api);
  await servers.stop(worker);
  const real = scoredUsers();
  const realIds = [...Array.from({ length: spreadUsers }, (_, n) => `u-${n}`), 'solo'];
  const synthetic = Math.max(0, USERS - real);
  const fillStarted = performance.now();
  await writeSyntheticScores(synthetic);
  const fillSeconds = (performance.now() - fillStarted) / 1000;
  api = await servers.start('api', port, dataDir);
  worker = await servers.start('worker', port + 1, dataDir);
  const sample = await (await fetch(`${url}/api/v1/user_scores?typeId=user&id=u-0`, { headers: { 'x-api-key': key } })).json();
  if (typeof sample !== 'number') throw new Error(`user_scores answered ${JSON.stringify(sample)}`);
  await scoreRun(3, realIds, synthetic);
  const run = await scoreRun(SCORE_SECONDS, realIds, synthetic);
  const rows = [{ scored_users: scoredUsers(), real_users: real, ...run, ...memory(api.pid) }];
  console.log(
    `GET /api/v1/user_scores (api process, ${SCORE_CONNECTIONS} connections, ${SCORE_SECONDS} s after a 3 s warm-up; ` +
      `users: 10 % real, 60 % synthetic, 30 % absent; ${synthetic} synthetic documents written in ${round(fillSeconds, 1)} s)`,
  );
  console.table(rows);
  console.log(`Score of u-0 (10 items, all actioned): ${sample}; wall time ${round((performance.now() - wallStarted) / 1000, 1)} s`);
} finally {
  await servers.stopAll();
  receiver.close();
  rmSync(dir, { recursive: true, force: true });
}
