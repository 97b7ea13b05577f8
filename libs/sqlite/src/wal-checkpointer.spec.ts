import { mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { waitFor } from '../../../test/support/wait-for.js';
import { WalCheckpointer } from './wal-checkpointer.js';

describe('WalCheckpointer', () => {
  const opened: Database.Database[] = [];
  const checkpointers: WalCheckpointer[] = [];
  afterEach(async () => {
    for (const c of checkpointers.splice(0)) await c.close();
    for (const db of opened.splice(0)) if (db.open) db.close();
  });

  /** A WAL-mode file whose own connection never checkpoints, holding `rows` rows of 1 KiB in its WAL only. */
  const walOnlyFile = (rows: number) => {
    const file = join(mkdtempSync(join(tmpdir(), 'warden-checkpoint-')), 'data.db');
    const db = new Database(file);
    opened.push(db);
    db.pragma('journal_mode = WAL');
    db.pragma('wal_autocheckpoint = 0');
    db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT)');
    const insert = db.prepare('INSERT INTO t (v) VALUES (?)');
    db.transaction(() => {
      for (let i = 0; i < rows; i++) insert.run('x'.repeat(1024));
    })();
    return { file, db };
  };

  it("copies what the WAL holds into the database file on its own thread, the writer's connection never checkpointing", async () => {
    const { file, db } = walOnlyFile(2_000);
    // Everything is in the WAL: the database file holds at most its first pages.
    expect(statSync(file).size).toBeLessThan(64 * 1024);
    const errors: string[] = [];
    // 0: the thread starts at once, whatever the WAL's size.
    checkpointers.push(new WalCheckpointer([file], (message) => errors.push(message), 10, 0));
    await waitFor(() => statSync(file).size > 2_000 * 1024, 'the rows copied into the database file');
    expect(db.prepare('SELECT count(*) AS n FROM t').get()).toEqual({ n: 2_000 });
    expect(errors).toEqual([]);
  });

  it('checkpoints once more when closed, then lets the files go', async () => {
    const { file, db } = walOnlyFile(10);
    // An interval longer than the test: only the closing round can copy the rows.
    const checkpointer = new WalCheckpointer([file], () => undefined, 3_600_000, 0);
    const insert = db.prepare('INSERT INTO t (v) VALUES (?)');
    for (let i = 0; i < 500; i++) insert.run('y'.repeat(1024));
    await checkpointer.close();
    expect(statSync(file).size).toBeGreaterThan(500 * 1024);
    await checkpointer.close();
  });

  it('starts its thread only once a WAL has reached the size given, and then copies it', async () => {
    const { file, db } = walOnlyFile(10);
    // An interval longer than the test: the watch's look is made by the test (check), not by time.
    const checkpointer = new WalCheckpointer([file], () => undefined, 3_600_000, 1024 * 1024);
    checkpointers.push(checkpointer);
    expect(statSync(`${file}-wal`).size).toBeLessThan(1024 * 1024);
    expect(checkpointer.check()).toBe(false);
    expect(checkpointer.started).toBe(false);
    const insert = db.prepare('INSERT INTO t (v) VALUES (?)');
    db.transaction(() => {
      for (let i = 0; i < 1_200; i++) insert.run('z'.repeat(1024));
    })();
    expect(checkpointer.check()).toBe(true);
    expect(checkpointer.started).toBe(true);
    // Its first round comes after the interval; the closing round copies the WAL at once.
    await checkpointer.close();
    expect(statSync(file).size).toBeGreaterThan(1_200 * 1024);
  });

  it('closes without a thread when no WAL reached the size (closing the last connection checkpoints it)', async () => {
    const { file } = walOnlyFile(10);
    const checkpointer = new WalCheckpointer([file], () => undefined, 3_600_000);
    expect(checkpointer.started).toBe(false);
    await checkpointer.close();
    expect(checkpointer.check()).toBe(false);
    expect(checkpointer.started).toBe(false);
  });

  it('reports a file it cannot open', async () => {
    const errors: string[] = [];
    const missing = join(mkdtempSync(join(tmpdir(), 'warden-checkpoint-')), 'missing.db');
    const checkpointer = new WalCheckpointer([missing], (message) => errors.push(message), 10, 0);
    checkpointers.push(checkpointer);
    await waitFor(() => errors.length > 0, 'the error reported');
    expect(errors[0]).toMatch(/directory does not exist|unable to open|SQLITE_CANTOPEN/i);
    // The thread has stopped: closing it does not wait for it.
    await checkpointer.close();
  });
});
