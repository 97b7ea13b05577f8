import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { waitFor } from '../../../../test/support/wait-for.js';
import { openSqlite, type SqliteDatabase } from '#warden/eventstore';
import type { Clock } from '#warden/kernel';
import { beginRequest } from './idempotency-store.contract.js';
import { SqliteIdempotencyStore } from './sqlite-idempotency-store.js';

const request = beginRequest;
const response = { status: 202, body: '{"accepted":1}' };

/** Resolves once a 1 ms interval timer has ticked a few times: the event loop is free. */
async function eventLoopTurns(what: string): Promise<void> {
  let ticks = 0;
  const timer = setInterval(() => ticks++, 1);
  await waitFor(() => ticks >= 3, what).finally(() => clearInterval(timer));
}

describe('SqliteIdempotencyStore while another process writes', () => {
  let connections: SqliteDatabase[] = [];
  const freshFile = () => join(mkdtempSync(join(tmpdir(), 'warden-idempotency-')), 'warden.db');
  const open = (file: string, busyTimeoutMs?: number) => {
    const db = openSqlite(file, { synchronous: 'normal', busyTimeoutMs });
    connections.push(db);
    return db;
  };
  afterEach(() => {
    for (const db of connections) if (db.open) db.close();
    connections = [];
  });

  it('reserves and completes keys once the write lock is free, without blocking the event loop meanwhile', async () => {
    const file = freshFile();
    const store = new SqliteIdempotencyStore(open(file));
    const done = request();
    await store.begin(done);
    const other = open(file);
    other.exec('BEGIN IMMEDIATE');
    const settled: string[] = [];
    const first = request();
    const begun = store.begin(first);
    const completed = store.complete(done, done.holder, response);
    void begun.finally(() => settled.push('begin')).catch(() => undefined);
    void completed.finally(() => settled.push('complete')).catch(() => undefined);
    // SQLite's busy handler would hold the whole process here until its timeout, then fail.
    await eventLoopTurns('a timer to tick while the write lock is held elsewhere');
    expect(settled).toEqual([]);
    other.exec('COMMIT');
    expect(await begun).toEqual({ outcome: 'reserved' });
    expect(await completed).toBe(true);
    expect(await store.begin({ ...done, holder: randomUUID() })).toEqual({ outcome: 'replay', response });
    expect(await store.begin({ ...first, holder: randomUUID() })).toEqual({ outcome: 'in-progress' });
  });

  it('answers a replay while the write lock is held elsewhere: a taken key needs no write', async () => {
    const file = freshFile();
    const store = new SqliteIdempotencyStore(open(file));
    const done = request();
    await store.begin(done);
    await store.complete(done, done.holder, response);
    const other = open(file);
    other.exec('BEGIN IMMEDIATE');
    expect(await store.begin({ ...done, holder: randomUUID() })).toEqual({ outcome: 'replay', response });
    other.exec('ROLLBACK');
  });

  it('on close, fails the writes still waiting behind the lock with SQLITE_BUSY, before the connection closes', async () => {
    const file = freshFile();
    const db = open(file, 300);
    const store = new SqliteIdempotencyStore(db);
    const other = open(file);
    other.exec('BEGIN IMMEDIATE');
    const begun = store.begin(request());
    void begun.catch(() => undefined);
    await eventLoopTurns('the reservation to retry behind the held lock');
    await store.close();
    db.close();
    other.exec('ROLLBACK');
    await expect(begun).rejects.toMatchObject({ code: 'SQLITE_BUSY' });
  });

  it('on close, writes what is still pending when the lock is free', async () => {
    const file = freshFile();
    const db = open(file);
    const store = new SqliteIdempotencyStore(db);
    const first = request();
    const begun = store.begin(first);
    await store.close();
    db.close();
    expect(await begun).toEqual({ outcome: 'reserved' });
    expect(await new SqliteIdempotencyStore(open(file)).begin({ ...first, holder: randomUUID() })).toEqual({ outcome: 'in-progress' });
  });

  it('holds a reservation for its lease, on its clock, then lets another request take over', async () => {
    let now = Date.parse('2030-01-01T00:00:00Z');
    const clock: Clock = { now: () => new Date(now) };
    const store = new SqliteIdempotencyStore(open(freshFile()), { clock });
    const crashed = request({ leaseMs: 1000 });
    await store.begin(crashed);
    const retry = { ...crashed, holder: randomUUID() };
    now += 999;
    expect(await store.begin(retry)).toEqual({ outcome: 'in-progress' });
    now += 1;
    expect(await store.begin(retry)).toEqual({ outcome: 'reserved' });
    expect(await store.complete(crashed, crashed.holder, response)).toBe(false);
  });
});
