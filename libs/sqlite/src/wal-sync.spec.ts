import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { WalSync } from './wal-sync.js';

/** A WalSync whose rounds finish only when the test says so. */
function heldSync() {
  const rounds: Array<() => void> = [];
  const sync = new WalSync(
    () =>
      new Promise<void>((resolve) => {
        rounds.push(resolve);
      }),
  );
  return { sync, rounds, finish: (n: number) => rounds[n]!() };
}

const settled = async (p: Promise<void>) => {
  let done = false;
  void p.then(() => (done = true));
  await new Promise((resolve) => setImmediate(resolve));
  return done;
};

describe('WalSync', () => {
  it('shares one round among the positions it covers and queues one round for every position after it', async () => {
    const { sync, rounds, finish } = heldSync();
    const first = sync.ensure(5);
    const covered = sync.ensure(3);
    const later = sync.ensure(7);
    const laterStill = sync.ensure(9);
    expect(rounds).toHaveLength(1);
    expect(await settled(first)).toBe(false);

    finish(0);
    await first;
    await covered;
    // The queued round starts only once the first is done: a sync that began before position 7
    // was committed cannot vouch for it.
    await new Promise((resolve) => setImmediate(resolve));
    expect(rounds).toHaveLength(2);
    expect(await settled(later)).toBe(false);
    finish(1);
    await Promise.all([later, laterStill]);

    // Everything up to 9 is on disk: no further round.
    await sync.ensure(9);
    await sync.ensure(2);
    expect(rounds).toHaveLength(2);
  });

  it('covers every position committed before a round started, so a reader catching up needs one round', async () => {
    let head = 1000;
    let calls = 0;
    const sync = new WalSync(
      async () => {
        calls += 1;
      },
      undefined,
      () => head,
    );
    for (let through = 500; through <= 1000; through += 100) await sync.ensure(through);
    expect(calls).toBe(1);
    head = 1200;
    await sync.ensure(1100);
    expect(calls).toBe(2);
  });

  it('fails the callers of a failed round and starts afresh for the next', async () => {
    let calls = 0;
    const sync = new WalSync(async () => {
      calls += 1;
      if (calls === 1) throw new Error('EIO');
    });
    await expect(sync.ensure(4)).rejects.toThrow('EIO');
    await sync.ensure(4);
    expect(calls).toBe(2);
  });

  it('syncs a real WAL file through a descriptor of its own', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'warden-wal-sync-')), 'db.sqlite');
    const db = new Database(file);
    db.pragma('journal_mode = WAL');
    db.exec('CREATE TABLE t (x)');
    db.prepare('INSERT INTO t VALUES (1)').run();
    const sync = WalSync.forDatabase(file);
    await sync.ensure(1);
    await sync.close();
    db.close();
  });
});
