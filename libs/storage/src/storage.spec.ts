import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { openStorage } from './storage.js';

const configFor = (dataDir: string) =>
  ({ dataDir, sqliteSync: 'normal', eventStoreUrl: undefined, mongoUrl: undefined, secretKey: undefined, secretKeyFile: undefined }) as const;

const namesIn = (file: string, type: 'table' | 'index' | 'view') => {
  const db = new Database(file, { readonly: true });
  try {
    return db
      .prepare<[string], { name: string }>('SELECT name FROM sqlite_master WHERE type = ? ORDER BY name')
      .all(type)
      .map((r) => r.name);
  } finally {
    db.close();
  }
};

/** Runs SQL on a data directory's log file, as an earlier release (or an operator) would have. */
const onLogFile = (dataDir: string, sql: string) => {
  const db = new Database(join(dataDir, 'warden.db'));
  try {
    db.pragma('journal_mode = WAL');
    db.exec(sql);
  } finally {
    db.close();
  }
};

const EVENTS_TABLE = `CREATE TABLE IF NOT EXISTS events (position INTEGER PRIMARY KEY AUTOINCREMENT, stream TEXT NOT NULL, revision INTEGER NOT NULL, id TEXT NOT NULL UNIQUE, type TEXT NOT NULL, data TEXT NOT NULL, metadata TEXT NOT NULL, UNIQUE (stream, revision));`;
/** A log of `count` events (positions 1..count). */
const logOf = (count: number) =>
  EVENTS_TABLE +
  Array.from(
    { length: count },
    (_, i) => `INSERT INTO events (stream, revision, id, type, data, metadata) VALUES ('s-1', ${i}, 'e${i}', 'Happened', '{}', '{}');`,
  ).join('\n');

const freshDataDir = () => mkdtempSync(join(tmpdir(), 'warden-storage-'));

describe("openStorage on an earlier release's data directory", () => {
  it('moves the read models out of the log file into read-models.db, with their checkpoints and indexes, once', async () => {
    const dataDir = freshDataDir();
    onLogFile(
      dataDir,
      `${logOf(6)}
       CREATE TABLE projection_checkpoints (projection TEXT PRIMARY KEY, position INTEGER NOT NULL) WITHOUT ROWID;
       INSERT INTO projection_checkpoints VALUES ('jobs-projection', 6);
       CREATE TABLE "rm/jobs" (id TEXT PRIMARY KEY, doc TEXT NOT NULL, position INTEGER) WITHOUT ROWID;
       CREATE INDEX "rm/jobs/state" ON "rm/jobs" (json_extract(doc, '$.state'));
       INSERT INTO "rm/jobs" VALUES ('j1', '{"state":"PENDING"}', 5), ('j2', '{"state":"DONE"}', 6);`,
    );
    const first = await openStorage(configFor(dataDir));
    expect(first.notices.filter((n) => n.startsWith('Read models'))).toEqual([
      expect.stringMatching(/^Read models moved from warden\.db to read-models\.db: 2 documents in \d+ ms$/),
    ]);
    expect(first.description).toContain(`read models: SQLite (${dataDir}/read-models.db)`);
    expect(await first.readStore.get('jobs', 'j2')).toEqual({ state: 'DONE' });
    expect(await first.readStore.find('jobs', { state: 'PENDING' })).toEqual([{ state: 'PENDING' }]);
    expect(await first.readStore.checkpoint('jobs-projection')).toBe(6);
    await first.close();
    expect(namesIn(join(dataDir, 'warden.db'), 'table')).not.toContain('rm/jobs');
    expect(namesIn(join(dataDir, 'read-models.db'), 'index')).toContain('rm/jobs/state');
    // Clustered by id in the log file, as releases before 2026-11-30 made them: a rowid table once moved, not copied twice.
    const moved = new Database(join(dataDir, 'read-models.db'), { readonly: true });
    expect(moved.prepare("SELECT sql FROM sqlite_master WHERE name = 'rm/jobs'").pluck().get()).not.toMatch(/WITHOUT ROWID/);
    moved.close();

    const again = await openStorage(configFor(dataDir));
    expect(again.notices.some((n) => n.startsWith('Read models'))).toBe(false);
    expect(await again.readStore.checkpoint('jobs-projection')).toBe(6);
    await again.close();
  });

  it("leaves no copy of a moved document in the log file's freed pages", async () => {
    const dataDir = freshDataDir();
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

  it("takes the log file's copy over read-models.db's when both are there (a pre-split warden.db restored, or a move cut short)", async () => {
    const dataDir = freshDataDir();
    onLogFile(dataDir, logOf(9));
    const newer = await openStorage(configFor(dataDir));
    await newer.readStore.commit([{ op: 'put', collection: 'jobs', id: 'j1', doc: { state: 'DONE' }, position: 9 }], {
      projection: 'jobs-projection',
      from: 0,
      to: 9,
    });
    await newer.readStore.commit([{ op: 'put', collection: 'later', id: 'x', doc: {}, position: 9 }]);
    await newer.close();
    // What the restored file holds: its own read models, as of its own log.
    onLogFile(
      dataDir,
      `DROP VIEW projection_checkpoints;
       CREATE TABLE projection_checkpoints (projection TEXT PRIMARY KEY, position INTEGER NOT NULL) WITHOUT ROWID;
       INSERT INTO projection_checkpoints VALUES ('jobs-projection', 4);
       CREATE TABLE "rm/jobs" (id TEXT PRIMARY KEY, doc TEXT NOT NULL, position INTEGER) WITHOUT ROWID;
       INSERT INTO "rm/jobs" VALUES ('j1', '{"state":"PENDING"}', 4);`,
    );
    const reopened = await openStorage(configFor(dataDir));
    expect(await reopened.readStore.get('jobs', 'j1')).toEqual({ state: 'PENDING' });
    expect(await reopened.readStore.checkpoint('jobs-projection')).toBe(4);
    expect(await reopened.readStore.get('later', 'x')).toBeUndefined();
    await reopened.close();
    expect(namesIn(join(dataDir, 'warden.db'), 'table').filter((t) => t.startsWith('rm/') || t === 'projection_checkpoints')).toEqual([]);
  });

  it('moves the shared table of releases before a table per collection out of the log file, then into its tables', async () => {
    const dataDir = freshDataDir();
    onLogFile(
      dataDir,
      `CREATE TABLE read_models (collection TEXT NOT NULL, id TEXT NOT NULL, doc TEXT NOT NULL, position INTEGER, PRIMARY KEY (collection, id)) WITHOUT ROWID;
       INSERT INTO read_models VALUES ('jobs', 'j1', '{"state":"PENDING"}', 5), ('jobs', 'j2', '{"state":"DONE"}', 6);`,
    );
    const first = await openStorage(configFor(dataDir));
    expect(first.notices.filter((n) => n.startsWith('Read models'))).toEqual([
      expect.stringMatching(/^Read models moved from warden\.db to read-models\.db: 2 documents in \d+ ms$/),
      expect.stringMatching(/^Read models moved to a table per collection .*: 2 documents in \d+ ms; earlier releases can no longer open this data directory$/),
    ]);
    expect(await first.readStore.get('jobs', 'j2')).toEqual({ state: 'DONE' });
    await first.close();
    expect(namesIn(join(dataDir, 'warden.db'), 'view')).toEqual(['projection_checkpoints', 'read_models']);
    const again = await openStorage(configFor(dataDir));
    expect(again.notices.some((n) => n.startsWith('Read models'))).toBe(false);
    await again.close();
  });
});

describe('openStorage: the read models against the log', () => {
  it('leaves a view in the log file where a release before the split would keep its checkpoints, so that such a release fails at start', async () => {
    const dataDir = freshDataDir();
    await (await openStorage(configFor(dataDir))).close();
    const log = new Database(join(dataDir, 'warden.db'));
    try {
      // What such a release runs first: the table is not created over the view, and its read fails.
      log.exec('CREATE TABLE IF NOT EXISTS projection_checkpoints (projection TEXT PRIMARY KEY, position INTEGER NOT NULL) WITHOUT ROWID');
      expect(() => log.prepare('SELECT position FROM projection_checkpoints WHERE projection = ?').get('catalog')).toThrow(/no such column/);
    } finally {
      log.close();
    }
  });

  it("drops read models whose checkpoints are past the log's end, to be rebuilt, and says so", async () => {
    const dataDir = freshDataDir();
    onLogFile(dataDir, logOf(3));
    const before = await openStorage(configFor(dataDir));
    await before.readStore.commit([{ op: 'put', collection: 'jobs', id: 'j1', doc: { state: 'DONE' }, position: 3 }], {
      projection: 'jobs-projection',
      from: 0,
      to: 3,
    });
    await before.close();
    const untouched = await openStorage(configFor(dataDir));
    expect(untouched.notices.some((n) => n.startsWith('Read models'))).toBe(false);
    expect(await untouched.readStore.checkpoint('jobs-projection')).toBe(3);
    await untouched.close();

    // The log's tail gone (a restored backup, a power loss with WARDEN_SQLITE_SYNC=normal).
    onLogFile(dataDir, 'DELETE FROM events WHERE position > 1');
    const after = await openStorage(configFor(dataDir));
    expect(after.notices.filter((n) => n.startsWith('Read models'))).toEqual([
      expect.stringMatching(/^Read models dropped, to be rebuilt from the log: a checkpoint \(3\) was past the log's last position/),
    ]);
    expect(await after.readStore.checkpoint('jobs-projection')).toBe(0);
    expect(await after.readStore.get('jobs', 'j1')).toBeUndefined();
    await after.close();
  });
});
