import { mkdtempSync } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { waitFor } from '../../../test/support/wait-for.js';
import { WalSync } from './wal-sync.js';

/** A real WAL database, and a WalSync on its -wal file whose syncs are real but counted and held at will. */
function walDatabase() {
  const file = join(mkdtempSync(join(tmpdir(), 'warden-walsync-')), 'warden.db');
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.exec('CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT NOT NULL)');
  const syncs: Array<{ release: () => void }> = [];
  let hold = false;
  let failNext: Error | undefined;
  const sync = new WalSync(`${file}-wal`, async (handle: FileHandle) => {
    if (hold) await new Promise<void>((release) => syncs.push({ release }));
    else syncs.push({ release: () => undefined });
    if (failNext) {
      const error = failNext;
      failNext = undefined;
      throw error;
    }
    await handle.datasync();
  });
  return {
    db,
    file,
    sync,
    syncs,
    hold: (on: boolean) => (hold = on),
    failNextSync: (error: Error) => (failNext = error),
    write: (text: string) => Number(db.prepare('INSERT INTO notes (text) VALUES (?)').run(text).lastInsertRowid),
  };
}

describe('WalSync', () => {
  const open: Array<ReturnType<typeof walDatabase>> = [];
  const fresh = () => {
    const w = walDatabase();
    open.push(w);
    return w;
  };
  afterEach(async () => {
    for (const w of open.splice(0)) {
      w.hold(false);
      for (const s of w.syncs) s.release();
      await w.sync.close();
      w.db.close();
    }
  });

  it('syncs the WAL file once for a mark, and not again for a mark it already covers', async () => {
    const w = fresh();
    const mark = w.write('a');
    await w.sync.through(mark);
    expect(w.syncs).toHaveLength(1);
    await w.sync.through(mark);
    expect(w.syncs).toHaveLength(1);
    await w.sync.through(w.write('b'));
    expect(w.syncs).toHaveLength(2);
  });

  it('lets a burst share syncs: marks asked for during a sync wait for the one next one, which covers them all', async () => {
    const w = fresh();
    w.hold(true);
    const first = w.sync.through(w.write('first'));
    await waitFor(() => w.syncs.length === 1, 'the first sync to start');
    let settled = 0;
    const burst = ['b', 'c', 'd', 'e'].map((t) => w.sync.through(w.write(t)).then(() => settled++));
    // The running sync began before these rows reached the WAL: it cannot answer for them.
    w.syncs[0]!.release();
    await first;
    await waitFor(() => w.syncs.length === 2, 'the next sync to start');
    expect(settled).toBe(0);
    w.syncs[1]!.release();
    await Promise.all(burst);
    expect(w.syncs).toHaveLength(2);
  });

  it('answers a mark that the running sync covers with that sync', async () => {
    const w = fresh();
    w.hold(true);
    const a = w.write('a');
    const b = w.write('b');
    const running = w.sync.through(b);
    await waitFor(() => w.syncs.length === 1, 'the sync to start');
    const earlier = w.sync.through(a);
    w.syncs[0]!.release();
    await Promise.all([running, earlier]);
    expect(w.syncs).toHaveLength(1);
  });

  it('fails the marks of a failed sync, and syncs them again when asked again', async () => {
    const w = fresh();
    const mark = w.write('a');
    w.failNextSync(new Error('EIO: i/o error, fdatasync'));
    await expect(w.sync.through(mark)).rejects.toThrow(/EIO/);
    await expect(w.sync.through(mark)).resolves.toBeUndefined();
    expect(w.syncs).toHaveLength(2);
  });

  it('has nothing to sync while there is no WAL file (everything is in the database file)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'warden-walsync-'));
    const sync = new WalSync(join(dir, 'missing.db-wal'));
    await expect(sync.through(1)).resolves.toBeUndefined();
    await sync.close();
  });

  it('refuses new marks once closed', async () => {
    const w = fresh();
    await w.sync.close();
    await expect(w.sync.through(w.write('late'))).rejects.toThrow(/closed/);
  });
});
