// Worker thread of bench/flood.mjs: the latency of one command on a user_strikes stream of N events,
// in-process, through the built AggregateStore (dist/), on a SQLite event store of its own.
// workerData: { dir, sizes: [N, ...], commands, warmUp } (warmUp: untimed commands on the first
// size only: they warm the code, which the longer streams then find warm). Posts, in order, for each size:
//   { size, filled: seconds }, then { size, ms } per timed command, then { size, done: true, events }.
// The parent terminates the worker when a size overruns its budget: a fold of a long stream is one
// synchronous run that nothing else could interrupt.
import { join } from 'node:path';
import { parentPort, workerData } from 'node:worker_threads';
import { userStrikesDecider } from '../../dist/libs/enforcement/src/domain/user-strikes.decider.js';
import { userStrikesStream } from '../../dist/libs/enforcement/src/domain/user-strikes.streams.js';
import { openSqlite, SqliteEventStore, SqliteSnapshotStore } from '../../dist/libs/eventstore/src/index.js';
import { randomIds, systemClock } from '../../dist/libs/kernel/src/index.js';
import { AggregateStore } from '../../dist/libs/storage/src/aggregate-store.js';

/**
 * The aggregate store under test, as the server's storage module would make it. The one place
 * to adapt when its constructor changes (a state cache, a snapshot store beside the log: `db` is
 * the SQLite database the events live in, for a snapshot store on the same file).
 */
function aggregateStore(events, db) {
  return new AggregateStore(events, systemClock, randomIds, { snapshots: new SqliteSnapshotStore(db) });
}

const { dir, sizes, commands, warmUp } = workerData;
const ORG = 'bench';
const APPEND_CHUNK = 1_000;
const context = { orgId: ORG, correlationId: 'bench-stream-commands', causationId: null, actor: 'bench' };
const thresholds = [
  { strikes: 3, actionId: 'warn', action: { kind: 'CUSTOMER_DEFINED_ACTION', body: {} } },
  { strikes: 10, actionId: 'ban', action: { kind: 'CUSTOMER_DEFINED_ACTION', body: {} } },
];

const db = openSqlite(join(dir, 'warden.db'));
const events = new SqliteEventStore(db);
const store = aggregateStore(events, db);

/** A UserStrikesApplied as the decider records it, stamped for a direct append. */
function applied(n, user) {
  const at = new Date(Date.now() - 60_000).toISOString();
  return {
    id: randomIds.uuid(),
    type: 'UserStrikesApplied',
    data: {
      key: `fill-${user}-${n}`,
      strikes: 1,
      countAfter: n + 1,
      action: { id: 'remove' },
      policyIds: ['spam'],
      item: { id: `${user}-item-${n}`, typeId: 'post' },
      appliedAt: at,
    },
    metadata: { orgId: ORG, correlationId: 'bench-fill', causationId: null, actor: 'bench', occurredAt: at, schemaVersion: 1 },
  };
}

function command(i, user) {
  const now = new Date().toISOString();
  return {
    type: 'ApplyUserStrikes',
    key: `cmd-${user}-${i}`,
    strikes: 1,
    action: { id: 'remove' },
    policyIds: ['spam'],
    item: { id: `${user}-cmd-${i}`, typeId: 'post' },
    user: { id: user, typeId: 'user', typeName: 'User', version: 0 },
    at: now,
    now,
    windowDays: null,
    thresholds,
  };
}

for (const [index, size] of sizes.entries()) {
  // The stream is filled behind the store's back (no snapshot yet): its first command reads it all,
  // as a process would once; the timed ones are those after (cached, as in a running worker).
  const untimed = index === 0 ? warmUp : 1;
  const user = `stream-${size}`;
  const stream = userStrikesStream(ORG, { typeId: 'user', id: user });
  const fillStarted = performance.now();
  for (let from = 0; from < size; from += APPEND_CHUNK) {
    const chunk = Array.from({ length: Math.min(APPEND_CHUNK, size - from) }, (_, i) => applied(from + i, user));
    await events.append(stream, chunk, from === 0 ? 'no_stream' : from - 1);
  }
  // The bulk fill left a large WAL: checkpointed now, so that its write-back is not timed as the commands' cost.
  db.pragma('wal_checkpoint(TRUNCATE)');
  parentPort.postMessage({ size, filled: (performance.now() - fillStarted) / 1000 });
  for (let i = 0; i < untimed + commands; i++) {
    const started = performance.now();
    const handled = await store.handle(stream, userStrikesDecider, command(i, user), context);
    const ms = performance.now() - started;
    if (handled.events.length !== 1) throw new Error(`command ${i} on ${stream} decided ${handled.events.length} events, expected 1`);
    if (i >= untimed) parentPort.postMessage({ size, ms });
  }
  parentPort.postMessage({ size, done: true, events: size + untimed + commands });
}
await events.close();
db.close();
