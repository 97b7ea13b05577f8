// What one read-model document costs to write on the embedded read store (SqliteReadStore), by the
// shape of its indexes and the size of its collection: the dominant cost of an item's path through
// the projections (docs/benchmarks.md, "Floods and long histories", "What a read-model write costs").
// Not a test: prints a table.
// Usage: node bench/read-model-writes.mjs [documents already in the collection, default 0,100000,400000] [writes timed, default 20000]
//        [page cache MiB, default 64]
// (after `npm run build`).
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSqlite } from '../dist/libs/eventstore/src/index.js';
import { SqliteReadStore } from '../dist/libs/readstore/src/index.js';
import { FALLBACK_AUTOCHECKPOINT_PAGES, WalCheckpointer } from '../dist/libs/sqlite/src/index.js';

const SIZES = (process.argv[2] ?? '0,100000,400000').split(',').map(Number);
const TIMED = Number(process.argv[3] ?? 20_000);
/** The connection's page cache in MiB (openSqlite's default, 64, when not given). */
const CACHE_MIB = process.argv[4] === undefined ? undefined : Number(process.argv[4]);
/** Writes per commit: about what a projection's batch holds during a burst. */
const BATCH = 500;

/**
 * Collections shaped like the item history's entries (audit_item_history): an id that grows with
 * the log position, and what each shape indexes. `item` is a new item for every document, as in a
 * spread of items, so an index led by it takes each entry at a random place.
 */
const SHAPES = [
  { name: 'no index (the id only, in log order)', indexes: [] },
  { name: 'one index in log order (orgId, position)', indexes: [['orgId', 'position']] },
  { name: 'one index by item (orgId, typeId, itemId, position)', indexes: [['orgId', 'typeId', 'itemId', 'position']] },
  {
    name: "two indexes by item (the item history's)",
    indexes: [
      ['orgId', 'typeId', 'itemId', 'position'],
      ['orgId', 'typeId', 'itemId', 'type', 'position'],
    ],
  },
  // Shaped like a callback delivery's document: its id is the delivery's (random), as are a
  // statement of reasons', a score item's and most collections' but the history's.
  { name: "random ids, no index (a delivery's id)", indexes: [], randomId: true },
  {
    name: "random ids, the deliveries' two indexes (orgId, status; orgId, typeId, itemId)",
    indexes: [
      ['orgId', 'status'],
      ['orgId', 'typeId', 'itemId'],
    ],
    randomId: true,
  },
];
/** What a delivery's document carries besides: about 600 bytes in all, as in a flood's spread. */
const DESTINATION = `http://receiver.example.test/callbacks/${'x'.repeat(380)}`;
const TYPES = ['ItemSubmitted', 'ItemEvaluated', 'ActionCallbackRequested', 'UserStrikesApplied', 'CallbackDeliveryRequested', 'CallbackDelivered'];

async function measure(shape, size) {
  const dir = mkdtempSync(join(tmpdir(), 'warden-bench-rm-'));
  // As a server opens it (storage.ts): the WAL checkpointed on a thread, not inside the commits.
  const file = join(dir, 'read-models.db');
  const db = openSqlite(file, {
    synchronous: 'normal',
    walAutocheckpointPages: FALLBACK_AUTOCHECKPOINT_PAGES,
    ...(CACHE_MIB === undefined ? {} : { cacheMiB: CACHE_MIB }),
  });
  const checkpointer = new WalCheckpointer([file], (message) => console.error(`checkpoint failed: ${message}`));
  const store = new SqliteReadStore(db);
  for (const fields of shape.indexes) await store.ensureIndex('history', fields);
  let position = 0;
  const batch = async (n) => {
    const writes = [];
    for (let i = 0; i < n; i++) {
      position++;
      const itemId = `item-${Math.floor(Math.random() * 1e9)}`;
      const doc = { orgId: 'bench', typeId: 'post', itemId, position, stream: `item-bench:post:${itemId}`, revision: 0, type: TYPES[position % TYPES.length] };
      const id = shape.randomId ? `bench:${randomUUID()}` : `${position}:post:${itemId}`;
      writes.push({ op: 'put', collection: 'history', id, doc: shape.randomId ? { ...doc, status: 'delivered', destination: DESTINATION } : doc, position });
    }
    await store.commit(writes);
  };
  while (position < size) await batch(Math.min(BATCH * 10, size - position));
  const started = performance.now();
  for (let done = 0; done < TIMED; done += BATCH) await batch(Math.min(BATCH, TIMED - done));
  const us = ((performance.now() - started) * 1000) / TIMED;
  await store.close();
  await checkpointer.close();
  db.close();
  rmSync(dir, { recursive: true, force: true });
  return us;
}

const rows = [];
for (const shape of SHAPES) {
  const cells = [];
  for (const size of SIZES) cells.push((await measure(shape, size)).toFixed(1));
  rows.push(`| ${shape.name} | ${cells.join(' | ')} |`);
}
console.log(
  `Read-model writes on SqliteReadStore: µs per document put, ${TIMED} timed in commits of ${BATCH}, page cache ${CACHE_MIB ?? 64} MiB (node ${process.version})\n`,
);
console.log(`| collection's indexes | ${SIZES.map((s) => `${s.toLocaleString('en')} documents before`).join(' | ')} |`);
console.log(`|---|${SIZES.map(() => '---|').join('')}`);
for (const row of rows) console.log(row);
