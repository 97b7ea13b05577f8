import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { openStorage } from './storage.js';

const configFor = (dataDir: string) => ({ dataDir, sqliteSync: 'normal', eventStoreUrl: undefined, mongoUrl: undefined, secretKey: undefined }) as const;

const tablesIn = (file: string, type: 'table' | 'index' | 'view') => {
  const db = new Database(file, { readonly: true });
  try {
    return db.prepare<[string], { name: string }>('SELECT name FROM sqlite_master WHERE type = ? ORDER BY name').all(type).map((r) => r.name);
  } finally {
    db.close();
  }
};

describe("openStorage on an earlier release's data directory", () => {
  it('moves the read models out of the log file into read-models.db, with their checkpoints and indexes, once', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'warden-storage-'));
    const old = new Database(join(dataDir, 'warden.db'));
    old.pragma('journal_mode = WAL');
    old.exec(`CREATE TABLE events (position INTEGER PRIMARY KEY AUTOINCREMENT, stream TEXT NOT NULL, revision INTEGER NOT NULL, id TEXT NOT NULL UNIQUE, type TEXT NOT NULL, data TEXT NOT NULL, metadata TEXT NOT NULL, UNIQUE (stream, revision));
              CREATE TABLE projection_checkpoints (projection TEXT PRIMARY KEY, position INTEGER NOT NULL) WITHOUT ROWID;
              INSERT INTO projection_checkpoints VALUES ('jobs-projection', 6);
              CREATE TABLE "rm/jobs" (id TEXT PRIMARY KEY, doc TEXT NOT NULL, position INTEGER) WITHOUT ROWID;
              CREATE INDEX "rm/jobs/state" ON "rm/jobs" (json_extract(doc, '$.state'));
              INSERT INTO "rm/jobs" VALUES ('j1', '{"state":"PENDING"}', 5), ('j2', '{"state":"DONE"}', 6);`);
    old.close();

    const first = await openStorage(configFor(dataDir));
    expect(first.notices.filter((n) => n.startsWith('Read models moved'))).toEqual([
      expect.stringMatching(/^Read models moved from warden\.db to read-models\.db: 2 documents in \d+ ms$/),
    ]);
    expect(first.description).toContain(`read models: SQLite (${dataDir}/read-models.db)`);
    expect(await first.readStore.get('jobs', 'j2')).toEqual({ state: 'DONE' });
    expect(await first.readStore.find('jobs', { state: 'PENDING' })).toEqual([{ state: 'PENDING' }]);
    expect(await first.readStore.checkpoint('jobs-projection')).toBe(6);
    await first.close();
    expect(tablesIn(join(dataDir, 'warden.db'), 'table')).not.toContain('rm/jobs');
    expect(tablesIn(join(dataDir, 'warden.db'), 'table')).not.toContain('projection_checkpoints');
    expect(tablesIn(join(dataDir, 'read-models.db'), 'index')).toContain('rm/jobs/state');

    const again = await openStorage(configFor(dataDir));
    expect(again.notices.some((n) => n.startsWith('Read models moved'))).toBe(false);
    expect(await again.readStore.checkpoint('jobs-projection')).toBe(6);
    await again.close();
  });

  it("leaves no copy of a moved document in the log file's freed pages", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'warden-storage-'));
    const log = join(dataDir, 'warden.db');
    const old = new Database(log);
    old.pragma('journal_mode = WAL');
    old.exec('CREATE TABLE "rm/identity_users" (id TEXT PRIMARY KEY, doc TEXT NOT NULL, position INTEGER) WITHOUT ROWID');
    const insert = old.prepare('INSERT INTO "rm/identity_users" VALUES (?, ?, 1)');
    for (let i = 0; i < 200; i++) insert.run(`u${i}`, JSON.stringify({ email: `person-${i}@example.test`, padding: 'x'.repeat(200) }));
    old.pragma('wal_checkpoint(TRUNCATE)');
    old.close();
    const storage = await openStorage(configFor(dataDir));
    expect(await storage.readStore.get('identity_users', 'u17')).toMatchObject({ email: 'person-17@example.test' });
    await storage.close();
    const bytes = (file: string) => readFileSync(file).toString('latin1');
    expect(bytes(log)).not.toContain('person-17@example.test');
    expect(bytes(join(dataDir, 'read-models.db'))).toContain('person-17@example.test');
  });

  it("drops the log file's copies without copying them again when read-models.db already holds checkpoints (a move cut short)", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'warden-storage-'));
    const moved = await openStorage(configFor(dataDir));
    await moved.readStore.commit([{ op: 'put', collection: 'jobs', id: 'j1', doc: { state: 'DONE' }, position: 9 }], { projection: 'jobs-projection', from: 0, to: 9 });
    await moved.close();
    const log = new Database(join(dataDir, 'warden.db'));
    log.exec(`CREATE TABLE projection_checkpoints (projection TEXT PRIMARY KEY, position INTEGER NOT NULL) WITHOUT ROWID;
              INSERT INTO projection_checkpoints VALUES ('jobs-projection', 4);
              CREATE TABLE "rm/jobs" (id TEXT PRIMARY KEY, doc TEXT NOT NULL, position INTEGER) WITHOUT ROWID;
              INSERT INTO "rm/jobs" VALUES ('j1', '{"state":"PENDING"}', 4);`);
    log.close();

    const reopened = await openStorage(configFor(dataDir));
    expect(await reopened.readStore.get('jobs', 'j1')).toEqual({ state: 'DONE' });
    expect(await reopened.readStore.checkpoint('jobs-projection')).toBe(9);
    await reopened.close();
    expect(tablesIn(join(dataDir, 'warden.db'), 'table').filter((t) => t.startsWith('rm/') || t === 'projection_checkpoints')).toEqual([]);
  });

  it('moves the shared table of releases before a table per collection out of the log file, then into its tables', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'warden-storage-'));
    const old = new Database(join(dataDir, 'warden.db'));
    old.exec(`CREATE TABLE read_models (collection TEXT NOT NULL, id TEXT NOT NULL, doc TEXT NOT NULL, position INTEGER, PRIMARY KEY (collection, id)) WITHOUT ROWID;
              INSERT INTO read_models VALUES ('jobs', 'j1', '{"state":"PENDING"}', 5), ('jobs', 'j2', '{"state":"DONE"}', 6);`);
    old.close();
    const first = await openStorage(configFor(dataDir));
    expect(first.notices.filter((n) => n.startsWith('Read models moved'))).toEqual([
      expect.stringMatching(/^Read models moved from warden\.db to read-models\.db: 2 documents in \d+ ms$/),
      expect.stringMatching(/^Read models moved to a table per collection .*: 2 documents in \d+ ms; earlier releases can no longer open this data directory$/),
    ]);
    expect(await first.readStore.get('jobs', 'j2')).toEqual({ state: 'DONE' });
    await first.close();
    // Such a release opening the log file finds a view where it would create its table, and stops.
    expect(tablesIn(join(dataDir, 'warden.db'), 'view')).toEqual(['read_models']);
    const again = await openStorage(configFor(dataDir));
    expect(again.notices.some((n) => n.startsWith('Read models moved'))).toBe(false);
    await again.close();
  });
});
