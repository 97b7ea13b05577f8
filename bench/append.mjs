// Append throughput of the embedded (SQLite) event store. Not a test: prints a table.
// Usage: npm run bench   (or: node bench/append.mjs [events])
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSqlite, SqliteEventStore } from '../dist/libs/eventstore/src/index.js';

const TOTAL = Number(process.argv[2] ?? 20000);

const event = (i) => ({
  id: randomUUID(),
  type: 'ItemSubmitted',
  data: { itemId: `item-${i}`, typeId: 'post', data: { text: 'lorem ipsum dolor sit amet '.repeat(4) } },
  metadata: { orgId: 'bench', correlationId: randomUUID(), causationId: null, actor: 'bench', occurredAt: new Date().toISOString(), schemaVersion: 1 },
});

async function scenario(name, sync, concurrency, streamOf, expectedOf) {
  const dir = mkdtempSync(join(tmpdir(), 'warden-bench-'));
  const db = openSqlite(join(dir, 'warden.db'), { synchronous: sync });
  const store = new SqliteEventStore(db);
  let next = 0;
  const latencies = [];
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      for (;;) {
        const i = next++;
        if (i >= TOTAL) return;
        const t = performance.now();
        await store.append(streamOf(i), [event(i)], expectedOf(i));
        latencies.push(performance.now() - t);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  await store.close();
  db.close();
  rmSync(dir, { recursive: true, force: true });
  latencies.sort((a, b) => a - b);
  const pct = (p) => latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * p))].toFixed(2);
  return { name, sync, concurrency, eventsPerSecond: Math.round(TOTAL / seconds), p50: pct(0.5), p99: pct(0.99) };
}

const rows = [];
for (const sync of ['full', 'normal']) {
  rows.push(
    await scenario(
      'single stream, one writer',
      sync,
      1,
      () => 'bench-one',
      (i) => (i === 0 ? 'no_stream' : i - 1),
    ),
  );
  rows.push(
    await scenario(
      'single stream, 64 writers',
      sync,
      64,
      () => 'bench-one',
      () => 'any',
    ),
  );
  rows.push(
    await scenario(
      'many streams, 64 writers',
      sync,
      64,
      (i) => `bench-${i}`,
      () => 'no_stream',
    ),
  );
}

console.log(`SQLite event store, ${TOTAL} appends of one event each (node ${process.version})\n`);
console.log('| scenario | synchronous | writers | events/s | p50 ms | p99 ms |');
console.log('|---|---|---|---|---|---|');
for (const r of rows) console.log(`| ${r.name} | ${r.sync} | ${r.concurrency} | ${r.eventsPerSecond} | ${r.p50} | ${r.p99} |`);
