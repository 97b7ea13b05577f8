import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { waitFor } from '../../../../test/support/wait-for.js';
import { openSqlite } from '../sqlite/sqlite-database.js';
import { SqliteSubjectKeyStore } from './sqlite-subject-key-store.js';

describe('SqliteSubjectKeyStore while another process writes', () => {
  it("creates new subjects' keys once the write lock is free, without blocking the event loop meanwhile", async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'warden-keys-')), 'warden.db');
    const db = openSqlite(file, { synchronous: 'normal' });
    const keys = new SqliteSubjectKeyStore(db);
    const other = openSqlite(file);
    other.exec('BEGIN IMMEDIATE');
    let settled = 0;
    const created = ['alice', 'bob', 'carol'].map((subject) => {
      const key = keys.keyFor('org', subject);
      void key.finally(() => settled++).catch(() => undefined);
      return key;
    });
    // SQLite's busy handler would hold the whole process here until its timeout, then fail.
    let timerRan = false;
    setTimeout(() => (timerRan = true), 0);
    await waitFor(() => timerRan, 'a timer to run while the write lock is held elsewhere');
    expect(settled).toBe(0);
    other.exec('COMMIT');
    const [alice, bob, carol] = await Promise.all(created);
    expect(new Set([alice!.keyId, bob!.keyId, carol!.keyId]).size).toBe(3);
    expect((await keys.keyFor('org', 'bob')).keyId).toBe(bob!.keyId);
    db.close();
    other.close();
  });

  it('on close, fails the key creations still waiting behind the lock with SQLITE_BUSY, before the connection closes', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'warden-keys-')), 'warden.db');
    const db = openSqlite(file, { synchronous: 'normal', busyTimeoutMs: 300 });
    const keys = new SqliteSubjectKeyStore(db);
    const other = openSqlite(file);
    other.exec('BEGIN IMMEDIATE');
    const created = keys.keyFor('org', 'dora');
    void created.catch(() => undefined);
    let ticks = 0;
    const timer = setInterval(() => ticks++, 1);
    await waitFor(() => ticks >= 3, 'the insert to retry behind the held lock').finally(() => clearInterval(timer));
    // A graceful drain: the store closes, then its connection. No retry may run on the closed connection.
    await keys.close();
    db.close();
    other.exec('ROLLBACK');
    await expect(created).rejects.toMatchObject({ code: 'SQLITE_BUSY' });
    other.close();
  });

  it('on close, inserts the keys still pending when the lock is free', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'warden-keys-')), 'warden.db');
    const db = openSqlite(file, { synchronous: 'normal' });
    const keys = new SqliteSubjectKeyStore(db);
    const created = keys.keyFor('org', 'erin');
    await keys.close();
    db.close();
    const key = await created;
    const reopened = openSqlite(file);
    expect([...(await new SqliteSubjectKeyStore(reopened).findMany([key.keyId])).keys()]).toEqual([key.keyId]);
    reopened.close();
  });
});

describe('SqliteSubjectKeyStore.keyFor', () => {
  it('answers the look-ups of one turn together, each with its own key: known ones found, new ones created once', async () => {
    const db = openSqlite(join(mkdtempSync(join(tmpdir(), 'warden-keys-')), 'warden.db'), { synchronous: 'normal' });
    const keys = new SqliteSubjectKeyStore(db);
    const known = await keys.keyFor('org', 'user:known');
    const subjects = ['user:new-1', 'user:known', 'user:new-2', 'user:new-1', 'user:known'];
    const answers = await Promise.all(subjects.map((subject) => keys.keyFor('org', subject)));
    const ids = answers.map((a) => a.keyId);
    expect(ids[1]).toBe(known.keyId);
    expect(ids[4]).toBe(known.keyId);
    expect(ids[3]).toBe(ids[0]);
    expect(new Set([ids[0], ids[2], known.keyId]).size).toBe(3);
    // Another organization's subject of the same name has a key of its own.
    expect((await keys.keyFor('other-org', 'user:known')).keyId).not.toBe(known.keyId);
    expect((await keys.findMany(ids)).get(ids[2]!)).toEqual(answers[2]!.key);
    await keys.close();
    db.close();
  });

  it('fails only the look-up that cannot be made, not the others of its turn', async () => {
    const db = openSqlite(join(mkdtempSync(join(tmpdir(), 'warden-keys-')), 'warden.db'), { synchronous: 'normal' });
    const keys = new SqliteSubjectKeyStore(db);
    const [good, bad, other] = await Promise.allSettled([
      keys.keyFor('org', 'user:a'),
      keys.keyFor('org', { not: 'a string' } as unknown as string),
      keys.keyFor('org', 'user:b'),
    ]);
    expect(good.status).toBe('fulfilled');
    expect(bad.status).toBe('rejected');
    expect(other.status).toBe('fulfilled');
    await keys.close();
    db.close();
  });

  it('answers a look-up asked for before an erasure of its turn with the key the erasure destroys', async () => {
    const db = openSqlite(join(mkdtempSync(join(tmpdir(), 'warden-keys-')), 'warden.db'), { synchronous: 'normal' });
    const keys = new SqliteSubjectKeyStore(db);
    const old = await keys.keyFor('org', 'user:leaving');
    // Another erasure first: its commit is due before the look-up's turn, and the next joins it.
    const earlier = keys.forget('org', 'user:unrelated');
    const asked = keys.keyFor('org', 'user:leaving');
    const forgotten = keys.forget('org', 'user:leaving');
    expect((await asked).keyId).toBe(old.keyId);
    expect(await forgotten).toBe(1);
    await earlier;
    expect((await keys.findMany([old.keyId])).size).toBe(0);
    // Asked for after the erasure: a new key.
    expect((await keys.keyFor('org', 'user:leaving')).keyId).not.toBe(old.keyId);
    await keys.close();
    db.close();
  });
});

describe('SqliteSubjectKeyStore.forget', () => {
  it("leaves a forgotten key's bytes in no data file (database, WAL, shared memory)", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'warden-keys-'));
    const file = join(dir, 'warden.db');
    const db = openSqlite(file, { synchronous: 'normal' });
    const keys = new SqliteSubjectKeyStore(db);
    const kept = await keys.keyFor('org', 'user:kept');
    const doomed = await keys.keyFor('org', 'user:doomed');
    // The key reaches the database file too, as an automatic checkpoint would copy it.
    db.pragma('wal_checkpoint(PASSIVE)');
    await keys.keyFor('org', 'user:later');
    const inFiles = (key: Buffer) =>
      ['warden.db', 'warden.db-wal', 'warden.db-shm'].filter((name) => existsSync(join(dir, name)) && readFileSync(join(dir, name)).includes(key));
    expect(inFiles(doomed.key)).not.toEqual([]);

    expect(await keys.forget('org', 'user:doomed')).toBe(1);

    expect(inFiles(doomed.key)).toEqual([]);
    expect(inFiles(kept.key)).toEqual(['warden.db']);
    expect((await keys.findMany([doomed.keyId, kept.keyId])).has(doomed.keyId)).toBe(false);
    expect(await keys.forget('org', 'user:doomed')).toBe(0);
    await keys.close();
    db.close();
  });
});
