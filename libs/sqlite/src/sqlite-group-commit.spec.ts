import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { waitFor } from '../../../test/support/wait-for.js';
import { SqliteGroupCommit } from './sqlite-group-commit.js';

describe('SqliteGroupCommit', () => {
  let connections: Database.Database[] = [];
  const open = (file: string, busyTimeoutMs?: number) => {
    const db = new Database(file);
    db.pragma('journal_mode = WAL');
    db.pragma(`busy_timeout = ${busyTimeoutMs ?? 5000}`);
    db.exec('CREATE TABLE IF NOT EXISTS notes (id INTEGER PRIMARY KEY, text TEXT NOT NULL UNIQUE)');
    connections.push(db);
    return db;
  };
  const freshFile = () => join(mkdtempSync(join(tmpdir(), 'warden-group-')), 'warden.db');
  const texts = (db: Database.Database) =>
    db
      .prepare<[], { text: string }>('SELECT text FROM notes ORDER BY id')
      .all()
      .map((r) => r.text);
  afterEach(() => {
    for (const db of connections) if (db.open) db.close();
    connections = [];
  });

  it("commits the jobs of one tick together, each with its own outcome: one job's failure undoes only that job", async () => {
    const db = open(freshFile());
    const writes = new SqliteGroupCommit(db);
    const insert = db.prepare('INSERT INTO notes (text) VALUES (?)');
    const results = await Promise.allSettled([
      writes.run(() => insert.run('a').changes),
      writes.run(() => {
        insert.run('b');
        insert.run('a');
      }),
      writes.run((undo) => {
        insert.run('c');
        undo();
        return insert.run('d').changes;
      }),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(texts(db)).toEqual(['a', 'd']);
  });

  it('commits what ran once a group is over its time budget and runs the rest a turn of the event loop later, in order', async () => {
    const db = open(freshFile());
    const seen: string[] = [];
    // A clock that each job moves on by 4 ms: a group over its 5 ms budget after two jobs.
    let clock = 0;
    const writes = new SqliteGroupCommit(db, { budgetMs: 5, now: () => clock, afterCommit: () => seen.push('commit') });
    const insert = db.prepare('INSERT INTO notes (text) VALUES (?)');
    const done = await Promise.all(
      ['a', 'b', 'c', 'd'].map((text) =>
        writes.run(() => {
          clock += 4;
          seen.push(text);
          // Other work that arrives meanwhile: it runs before the group's rest, not after it.
          if (text === 'a') setImmediate(() => seen.push('other work'));
          return insert.run(text).changes;
        }),
      ),
    );
    expect(done).toEqual([1, 1, 1, 1]);
    expect(texts(db)).toEqual(['a', 'b', 'c', 'd']);
    expect(seen).toEqual(['a', 'b', 'commit', 'other work', 'c', 'd', 'commit']);
  });

  it('waits for a lock held by another connection without blocking the event loop, then commits', async () => {
    const file = freshFile();
    const db = open(file);
    const other = open(file);
    const writes = new SqliteGroupCommit(db);
    other.exec('BEGIN IMMEDIATE');
    let done = false;
    const written = writes.run(() => db.prepare("INSERT INTO notes (text) VALUES ('queued')").run().changes);
    void written.finally(() => (done = true)).catch(() => undefined);
    let ticks = 0;
    const timer = setInterval(() => ticks++, 1);
    await waitFor(() => ticks >= 3, 'a timer to tick while the write lock is held elsewhere').finally(() => clearInterval(timer));
    expect(done).toBe(false);
    other.exec('COMMIT');
    await expect(written).resolves.toBe(1);
    expect(texts(other)).toEqual(['queued']);
    // The attempts ran without the busy handler; the connection's own timeout is back for the rest.
    expect(db.pragma('busy_timeout', { simple: true })).toBe(5000);
  });

  it('on close, fails the jobs still waiting behind a held lock with SQLITE_BUSY, and touches the connection no more', async () => {
    const file = freshFile();
    const db = open(file, 200);
    const other = open(file);
    const writes = new SqliteGroupCommit(db);
    other.exec('BEGIN IMMEDIATE');
    const written = writes.run(() => db.prepare("INSERT INTO notes (text) VALUES ('late')").run().changes);
    void written.catch(() => undefined);
    let ticks = 0;
    const timer = setInterval(() => ticks++, 1);
    await waitFor(() => ticks >= 3, 'the group to retry behind the held lock').finally(() => clearInterval(timer));
    writes.close();
    db.close();
    other.exec('ROLLBACK');
    await expect(written).rejects.toMatchObject({ code: 'SQLITE_BUSY' });
    await expect(writes.run(() => 1)).rejects.toThrow(/closed/);
  });

  it('on close, commits what is pending when the lock is free', async () => {
    const file = freshFile();
    const db = open(file);
    const writes = new SqliteGroupCommit(db);
    const written = writes.run(() => db.prepare("INSERT INTO notes (text) VALUES ('last')").run().changes);
    writes.close();
    db.close();
    await expect(written).resolves.toBe(1);
    expect(texts(open(file))).toEqual(['last']);
  });
});
