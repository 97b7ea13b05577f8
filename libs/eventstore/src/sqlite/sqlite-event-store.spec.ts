import { existsSync, mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { anEvent } from '../../../../test/support/events.js';
import { sqliteStores } from '../../../../test/support/sqlite-stores.js';
import { waitFor } from '../../../../test/support/wait-for.js';
import type { RecordedEvent } from '#warden/kernel';
import { streamName } from '#warden/kernel';
import { openSqlite } from './sqlite-database.js';
import { SqliteEventStore } from './sqlite-event-store.js';
import { WalSync } from '#warden/sqlite';

describe('SqliteEventStore typed reads', () => {
  let stores: ReturnType<typeof sqliteStores>;
  afterEach(async () => {
    await stores?.close();
  });

  it('hands a typed subscriber only its types, with empty batches that carry the position past the rest', async () => {
    stores = sqliteStores();
    await stores.events.append(
      streamName('mixed', 'a'),
      [anEvent('Wanted'), ...Array.from({ length: 1200 }, () => anEvent('Noise')), anEvent('Wanted')],
      'no_stream',
    );
    const head = await stores.events.headPosition();
    const batches: Array<{ types: string[]; through: number | undefined }> = [];
    const sub = stores.events.subscribeToAll({
      eventTypes: ['Wanted'],
      onEvents: async (events: readonly RecordedEvent[], through?: number) => {
        batches.push({ types: events.map((e) => e.type), through });
      },
    });
    await waitFor(() => batches.at(-1)?.through === head, `a batch through position ${head}`);
    await stores.events.append(streamName('mixed', 'b'), [anEvent('Noise')], 'no_stream');
    await waitFor(() => batches.at(-1)?.through === head + 1, `a batch through position ${head + 1}`);
    await sub.stop();
    expect(batches.flatMap((b) => b.types)).toEqual(['Wanted', 'Wanted']);
    expect(batches.at(-1)).toEqual({ types: [], through: head + 1 });
  });

  it('reads only the named types with readAll', async () => {
    stores = sqliteStores();
    await stores.events.append(streamName('mixed', 'a'), [anEvent('Noise'), anEvent('Wanted'), anEvent('Other')], 'no_stream');
    const read = await stores.events.readAll({ eventTypes: ['Wanted', 'Other'] });
    expect(read.map((e) => e.type)).toEqual(['Wanted', 'Other']);
  });
});

describe('SqliteEventStore group commit while another process writes', () => {
  let stores: ReturnType<typeof sqliteStores>;
  afterEach(async () => {
    await stores?.close();
  });

  it('waits for the write lock without blocking the event loop; the appends queued meanwhile all land', async () => {
    stores = sqliteStores();
    await stores.events.append(streamName('shared', 'x'), [anEvent('First')], 'no_stream');
    const other = stores.open();
    other.exec('BEGIN IMMEDIATE');
    const settled: boolean[] = [];
    const appends = Array.from({ length: 20 }, (_, i) => {
      const done = stores.events.append(streamName('waiting', String(i)), [anEvent('Queued')], 'no_stream');
      void done.finally(() => (settled[i] = true)).catch(() => undefined);
      return done;
    });
    const wrong = stores.events.append(streamName('shared', 'x'), [anEvent('Late')], 5);
    void wrong.catch(() => undefined);
    // SQLite's busy handler would hold the whole process here until its timeout, then fail.
    let timerRan = false;
    setTimeout(() => (timerRan = true), 0);
    await waitFor(() => timerRan, 'a timer to run while the write lock is held elsewhere');
    expect(settled.filter(Boolean)).toEqual([]);
    other.exec('COMMIT');
    const results = await Promise.all(appends);
    await expect(wrong).rejects.toThrow(/expected revision 5, actual 0/);
    expect(new Set(results.map((r) => r.position)).size).toBe(20);
    expect(results.every((r) => r.nextRevision === 0)).toBe(true);
    expect((await stores.events.readAll({ eventTypes: ['Queued'] })).length).toBe(20);
  });

  it('fails the waiting appends after the busy timeout, as SQLite would, and appends again once the lock is free', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'warden-busy-')), 'warden.db');
    const db = openSqlite(file, { synchronous: 'normal', busyTimeoutMs: 50 });
    const events = new SqliteEventStore(db);
    const other = openSqlite(file);
    other.exec('BEGIN IMMEDIATE');
    await expect(events.append(streamName('busy', 'a'), [anEvent('Blocked')], 'no_stream')).rejects.toMatchObject({ code: 'SQLITE_BUSY' });
    other.exec('ROLLBACK');
    await expect(events.append(streamName('busy', 'a'), [anEvent('Free')], 'no_stream')).resolves.toMatchObject({ nextRevision: 0 });
    await events.close();
    db.close();
    other.close();
  });

  it('on close, fails the appends still waiting behind the lock with SQLITE_BUSY, before the connection closes', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'warden-busy-')), 'warden.db');
    const db = openSqlite(file, { synchronous: 'normal', busyTimeoutMs: 300 });
    const events = new SqliteEventStore(db);
    const other = openSqlite(file);
    other.exec('BEGIN IMMEDIATE');
    const appended = events.append(streamName('closing', 'a'), [anEvent('Late')], 'no_stream');
    void appended.catch(() => undefined);
    let ticks = 0;
    const timer = setInterval(() => ticks++, 1);
    await waitFor(() => ticks >= 3, 'the append to retry behind the held lock').finally(() => clearInterval(timer));
    await events.close();
    db.close();
    other.exec('ROLLBACK');
    await expect(appended).rejects.toMatchObject({ code: 'SQLITE_BUSY' });
    other.close();
  });
});

describe('SqliteEventStore syncing its WAL off the event loop', () => {
  it('hands a subscriber the commit of another connection only once its own WAL sync after reading it is done', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'warden-wal-')), 'warden.db');
    const db = openSqlite(file, { synchronous: 'normal' });
    const rounds: Array<() => void> = [];
    const asked: number[] = [];
    const wal = new (class extends WalSync {
      override ensure(position: number) {
        asked.push(position);
        return super.ensure(position);
      }
    })(() => new Promise<void>((resolve) => rounds.push(resolve)));
    const events = new SqliteEventStore(db, { syncWal: wal, pollIntervalMs: 10 });
    const seen: string[] = [];
    const sub = events.subscribeToAll({ onEvents: async (batch) => void seen.push(...batch.map((e) => e.type)) });

    // Another process's append, committed to the shared file.
    const otherDb = openSqlite(file, { synchronous: 'normal' });
    const other = new SqliteEventStore(otherDb);
    await other.append(streamName('durable', 'a'), [anEvent('FromElsewhere')], 'no_stream');
    await waitFor(() => asked.includes(1), 'the subscriber to read the event and wait for the sync');
    expect(rounds).toHaveLength(1);
    expect(seen).toEqual([]);
    rounds[0]!();
    await waitFor(() => seen.length === 1, 'the subscriber to receive the event');

    // This store's own append: committed, acknowledged only after the round its commit asked for.
    let acknowledged = false;
    const append = events.append(streamName('durable', 'b'), [anEvent('Appended')], 'no_stream').then(() => (acknowledged = true));
    await waitFor(() => rounds.length === 2, 'a WAL sync after the commit');
    expect(asked.at(-1)).toBe(2);
    expect(otherDb.prepare('SELECT count(*) AS n FROM events').get()).toEqual({ n: 2 });
    expect(acknowledged).toBe(false);
    expect(seen).toEqual(['FromElsewhere']);
    rounds[1]!();
    await append;
    await waitFor(() => seen.length === 2, 'the subscriber to receive the appended event');
    expect(rounds).toHaveLength(2);

    await sub.stop();
    await events.close();
    await other.close();
    otherDb.close();
    db.close();
  });

  it('appends through a real fdatasync of the WAL file', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'warden-wal-')), 'warden.db');
    const db = openSqlite(file, { synchronous: 'normal' });
    const events = new SqliteEventStore(db, { syncWal: true });
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => events.append(streamName('durable', `s${i}`), [anEvent('Appended')], 'no_stream')));
    expect(results.map((r) => r.position).sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    expect(await events.readAll()).toHaveLength(20);
    await events.close();
    db.close();
  });
});

describe('closing while appends wait for their WAL sync', () => {
  it('settles them as appended: the wake-up of other threads, after the close, fails nothing', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'warden-wal-')), 'warden.db');
    const db = openSqlite(file, { synchronous: 'normal' });
    const events = new SqliteEventStore(db, { syncWal: true });
    // Committed in the turn's group commit, acknowledged once the sync ends: after close() began.
    const appending = Array.from({ length: 5 }, (_, i) => events.append(streamName('closing', `s${i}`), [anEvent('Appended')], 'no_stream'));
    await new Promise((resolve) => setImmediate(resolve));
    const closing = events.close();
    const results = await Promise.allSettled(appending);
    await closing;
    expect(results.map((r) => r.status)).toEqual(Array(5).fill('fulfilled'));
    db.close();
  });
});

describe('openSqlite', () => {
  it('opens in WAL mode with a 64 MiB page cache and 10,000-page checkpoints unless told otherwise', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'warden-open-')), 'warden.db');
    const db = openSqlite(file);
    const small = openSqlite(file, { cacheMiB: 8 });
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(db.pragma('cache_size', { simple: true })).toBe(-65536);
    expect(small.pragma('cache_size', { simple: true })).toBe(-8192);
    expect(db.pragma('wal_autocheckpoint', { simple: true })).toBe(10_000);
    db.close();
    small.close();
  });

  // Linux's lock table: the only way to see a POSIX lock a process holds.
  it.runIf(existsSync('/proc/locks'))("opening another connection keeps the locks this process's open connections hold on the file", () => {
    const file = join(mkdtempSync(join(tmpdir(), 'warden-open-')), 'warden.db');
    const mine = () => {
      const inode = statSync(file).ino;
      // Without each line's ordinal, which moves whenever another process takes or drops a lock.
      return readFileSync('/proc/locks', 'utf8')
        .split('\n')
        .filter((l) => l.includes(`:${inode} `) && l.includes(` ${process.pid} `))
        .map((l) => l.replace(/^\d+:\s*/, ''));
    };
    const first = openSqlite(file);
    first.exec('CREATE TABLE t (x)');
    // A connection in WAL mode holds a SHARED lock on the database file while it is open.
    const held = mine();
    expect(held.length).toBeGreaterThan(0);
    const second = openSqlite(file);
    // As sets: a connection may hold the same lock twice for a moment (a second READ line of the
    // same range, gone a moment later, failed a CI run); what must not happen is a lock lost.
    expect(new Set(mine())).toEqual(new Set(held));
    expect(statSync(file).mode & 0o777).toBe(0o600);
    first.close();
    second.close();
  });
});
