import Database from 'better-sqlite3';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { waitFor } from '../../../../test/support/wait-for.js';
import { CheckpointConflictError } from '../read-store.port.js';
import { SqliteReadStore } from './sqlite-read-store.js';

/** A file of its own in WAL mode, as the server opens it, and its path. */
function walFile(name = 'read-models.db'): { file: string; db: Database.Database } {
  const file = join(mkdtempSync(join(tmpdir(), 'warden-readstore-')), name);
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  return { file, db };
}

/**
 * An in-memory connection that remembers the SQL prepared on it (the narrowest seam), so that a
 * spec can ask SQLite for the plan of what the store runs; `prepare` is the original.
 */
function recordingDb(): { db: Database.Database; statements: string[]; prepare: Database.Database['prepare'] } {
  const db = new Database(':memory:');
  const statements: string[] = [];
  const prepare = db.prepare.bind(db) as Database.Database['prepare'];
  db.prepare = ((sql: string) => (statements.push(sql), prepare(sql))) as typeof db.prepare;
  return { db, statements, prepare };
}

describe('SqliteReadStore indexes', () => {
  it("serves a find on the indexed fields from the collection's index, not a scan", async () => {
    const { db, statements, prepare } = recordingDb();
    const store = new SqliteReadStore(db);
    await store.commit(
      Array.from({ length: 200 }, (_, i) => ({
        op: 'put' as const,
        collection: i % 2 ? 'evaluations' : 'other',
        id: `d${i}`,
        doc: { orgId: 'o', itemId: `i${i % 10}` },
      })),
    );
    await store.ensureIndex('evaluations', ['orgId', 'itemId']);
    const found = await store.find('evaluations', { orgId: 'o', itemId: 'i3' });
    expect(found).toHaveLength(20);
    const sql = statements.findLast((s) => s.startsWith('SELECT doc FROM "rm/evaluations" WHERE'))!;
    const plan = prepare(`EXPLAIN QUERY PLAN ${sql}`).all('o', 'i3', -1, 0) as Array<{ detail: string }>;
    expect(plan.map((p) => p.detail).join(' | ')).toMatch(/USING INDEX rm\/evaluations\/orgId,itemId/);
    await expect(store.find('bad name; drop', {})).rejects.toThrow(/collection name/);
    db.close();
  });
});

describe('SqliteReadStore order', () => {
  it('reads a sorted page in index order, either direction, ties in the order of first write (reversed after a descending key)', async () => {
    const { db, statements, prepare } = recordingDb();
    const store = new SqliteReadStore(db);
    await store.ensureIndex('jobs', ['queue', 'state', 'fifo']);
    // Written in an order unlike the ids', with ties on fifo.
    const ids = ['m', 'c', 'x', 'a', 'q', 'b'];
    await store.commit(ids.map((id, i) => ({ op: 'put' as const, collection: 'jobs', id, doc: { id, queue: 'q', state: 'PENDING', fifo: i < 3 ? 1 : 2 } })));
    const page = async (direction: 'asc' | 'desc') =>
      (await store.find<{ id: string }>('jobs', { queue: 'q', state: 'PENDING' }, { sort: [{ field: 'fifo', direction }], limit: 4 })).map((d) => d.id);
    expect(await page('asc')).toEqual(['m', 'c', 'x', 'a']);
    expect(await page('desc')).toEqual(['b', 'q', 'a', 'x']);
    for (const sql of statements.filter((s) => s.startsWith('SELECT doc FROM "rm/jobs" WHERE'))) {
      const plan = (prepare(`EXPLAIN QUERY PLAN ${sql}`).all('q', 'PENDING', 4, 0) as Array<{ detail: string }>).map((p) => p.detail).join(' | ');
      expect(plan).toMatch(/USING INDEX rm\/jobs\/queue,state,fifo/);
      expect(plan).not.toMatch(/TEMP B-TREE/);
    }
    // Unsorted: in the order of first write; a rewrite keeps a document's place.
    await store.commit([{ op: 'put', collection: 'jobs', id: 'm', doc: { id: 'm', queue: 'q', state: 'PENDING', fifo: 1, v: 2 } }]);
    expect((await store.find<{ id: string }>('jobs', { queue: 'q' })).map((d) => d.id)).toEqual(ids);
    // By id when asked, sorted or not.
    expect((await store.find<{ id: string }>('jobs', {}, { byId: true })).map((d) => d.id)).toEqual([...ids].sort());
    expect((await store.find<{ id: string }>('jobs', {}, { sort: [{ field: 'fifo', direction: 'desc' }], byId: true })).map((d) => d.id)).toEqual([
      'a',
      'b',
      'q',
      'c',
      'm',
      'x',
    ]);
    // A table an earlier release's process creates meanwhile (clustered by id, no rowid) is read with ties by id.
    db.exec(`CREATE TABLE "rm/older" (id TEXT PRIMARY KEY, doc TEXT NOT NULL, position INTEGER) WITHOUT ROWID;
             INSERT INTO "rm/older" VALUES ('z', '{"n":1}', 1), ('k', '{"n":1}', 2), ('a', '{"n":0}', 3);`);
    expect(await store.find('older', {}, { sort: [{ field: 'n', direction: 'desc' }] })).toEqual([{ n: 1 }, { n: 1 }, { n: 0 }]);
    expect(await store.find('older', {}, { sort: [{ field: 'n', direction: 'asc' }], limit: 2 })).toEqual([{ n: 0 }, { n: 1 }]);
    db.close();
  });
});

describe("SqliteReadStore's reads of one turn (readsShareTurn: the read-model thread's)", () => {
  it('a store for requests and reactors reads every time what is committed', async () => {
    const { file, db } = walFile();
    const store = new SqliteReadStore(db);
    await store.commit([{ op: 'put', collection: 'c', id: 'a', doc: { v: 1 }, position: 1 }]);
    const other = new Database(file);
    expect(await store.get('c', 'a')).toEqual({ v: 1 });
    expect(db.inTransaction).toBe(false);
    other.prepare(`UPDATE "rm/c" SET doc = '{"v":2}' WHERE id = 'a'`).run();
    expect(await store.get('c', 'a')).toEqual({ v: 2 });
    other.close();
    await store.close();
    db.close();
  });

  it('share one read transaction that ends with the turn, and never hide its own commits', async () => {
    const { file, db } = walFile();
    const store = new SqliteReadStore(db, { readsShareTurn: true });
    await store.commit([{ op: 'put', collection: 'c', id: 'a', doc: { v: 1 }, position: 1 }]);
    const other = new Database(file);
    const write = (v: number) => other.prepare(`UPDATE "rm/c" SET doc = ? WHERE id = 'a'`).run(JSON.stringify({ v }));

    expect(await store.get('c', 'a')).toEqual({ v: 1 });
    expect(db.inTransaction).toBe(true);
    // Another connection's commit in the same turn: seen from the next turn on, as if read a moment earlier.
    write(2);
    expect(await store.get('c', 'a')).toEqual({ v: 1 });
    expect(await store.count('c', { v: 1 })).toBe(1);
    await new Promise((resolve) => setImmediate(resolve));
    expect(db.inTransaction).toBe(false);
    expect(await store.get('c', 'a')).toEqual({ v: 2 });

    // Its own commit ends the turn's transaction first: the next read sees it.
    await store.commit([{ op: 'put', collection: 'c', id: 'a', doc: { v: 3 }, position: 5 }]);
    expect(await store.getVersioned('c', 'a')).toEqual({ doc: { v: 3 }, position: 5 });
    expect(await store.find('c', { v: 3 })).toEqual([{ v: 3 }]);
    expect(await store.checkpoint('p')).toBe(0);

    // Emptying the WAL (a GDPR deletion's purge) right after reads of the same turn.
    await store.commit([{ op: 'put', collection: 'c', id: 'a', doc: { v: 4 }, position: 6 }]);
    expect(await store.get('c', 'a')).toEqual({ v: 4 });
    await store.purgeEarlierVersions();
    expect(existsSync(`${file}-wal`) ? readFileSync(`${file}-wal`).length : 0).toBe(0);
    // And an index build.
    expect(await store.get('c', 'a')).toEqual({ v: 4 });
    await store.ensureIndex('c', ['v']);
    expect(await store.find('c', { v: 4 })).toEqual([{ v: 4 }]);
    await store.close();
    expect(db.inTransaction).toBe(false);
    other.close();
    db.close();
  });
});

describe('SqliteReadStore on a file written by an earlier release', () => {
  it("moves the documents of the shared read_models table into their collections' tables, positions and all", async () => {
    const db = new Database(':memory:');
    db.exec(`CREATE TABLE read_models (collection TEXT NOT NULL, id TEXT NOT NULL, doc TEXT NOT NULL, position INTEGER, PRIMARY KEY (collection, id)) WITHOUT ROWID;
             CREATE INDEX "rm_jobs_state" ON read_models (json_extract(doc, '$.state')) WHERE collection = 'jobs';
             CREATE TABLE projection_checkpoints (projection TEXT PRIMARY KEY, position INTEGER NOT NULL) WITHOUT ROWID;
             INSERT INTO projection_checkpoints VALUES ('jobs-projection', 7);
             INSERT INTO read_models VALUES ('jobs', 'j1', '{"state":"PENDING"}', 5), ('jobs', 'j2', '{"state":"DONE"}', 6),
                                            ('audit_chain_links', 'o:1', '{"link":"x"}', 1), ('tools', 't', '{"v":1}', NULL);`);
    const store = new SqliteReadStore(db);
    expect(store.moved).toMatchObject({ documents: 4 });
    expect(db.prepare("SELECT name FROM sqlite_master WHERE name = 'read_models' AND type = 'table'").get()).toBeUndefined();
    expect(await store.getVersioned('jobs', 'j1')).toEqual({ doc: { state: 'PENDING' }, position: 5 });
    expect(await store.find('jobs', { state: 'DONE' })).toEqual([{ state: 'DONE' }]);
    expect(await store.getVersioned('audit_chain_links', 'o:1')).toEqual({ doc: { link: 'x' }, position: 1 });
    expect(await store.getVersioned('tools', 't')).toEqual({ doc: { v: 1 }, position: 0 });
    expect(await store.checkpoint('jobs-projection')).toBe(7);
    // The positions still guard redeliveries.
    await store.commit([{ op: 'put', collection: 'jobs', id: 'j1', doc: { state: 'STALE' }, position: 5 }]);
    expect(await store.get('jobs', 'j1')).toEqual({ state: 'PENDING' });
    // A second process opening the file finds the move done.
    expect(new SqliteReadStore(db).moved).toBeUndefined();
    expect(await store.count('jobs')).toBe(2);
    db.close();
  });

  it('leaves no copy of a moved document in the freed pages, and a view that makes an earlier release fail instead of serving nothing', async () => {
    const { file, db: old } = walFile('warden.db');
    old.exec(
      'CREATE TABLE read_models (collection TEXT NOT NULL, id TEXT NOT NULL, doc TEXT NOT NULL, position INTEGER, PRIMARY KEY (collection, id)) WITHOUT ROWID',
    );
    const insert = old.prepare("INSERT INTO read_models VALUES ('identity_users', ?, ?, 1)");
    for (let i = 0; i < 200; i++) insert.run(`u${i}`, JSON.stringify({ email: `person-${i}@example.test`, padding: 'x'.repeat(200) }));
    old.close();
    const db = new Database(file);
    db.pragma('journal_mode = WAL');
    const store = new SqliteReadStore(db);
    db.pragma('wal_checkpoint(TRUNCATE)');
    const bytes = readFileSync(file).toString('latin1');
    // Once, in the collection's own table: none left behind in the old table's pages.
    expect(bytes.split('person-17@example.test').length - 1).toBe(1);
    expect(db.prepare("SELECT type FROM sqlite_master WHERE name = 'read_models'").get()).toEqual({ type: 'view' });
    // What an earlier release would do first: no table comes back in the view's place.
    expect(() => db.exec('ALTER TABLE read_models ADD COLUMN position INTEGER')).toThrow(/view/);
    expect(() => db.prepare("INSERT INTO read_models VALUES ('c', 'x', '{}', 1)").run()).toThrow();
    await store.close();
    db.close();
  });

  it("rebuilds a collection's table clustered by id in write order: documents, positions and indexes kept, old pages zeroed", async () => {
    const { file, db: old } = walFile();
    // As releases before 2026-11-30 created them.
    old.exec(`CREATE TABLE "rm/deliveries" (id TEXT PRIMARY KEY, doc TEXT NOT NULL, position INTEGER) WITHOUT ROWID;
              CREATE INDEX "rm/deliveries/orgId,status" ON "rm/deliveries" (json_extract(doc, '$.orgId'), json_extract(doc, '$.status'));
              CREATE TABLE "rm/tools" (id TEXT PRIMARY KEY, doc TEXT NOT NULL, position INTEGER) WITHOUT ROWID;
              INSERT INTO "rm/tools" VALUES ('t', '{"v":1}', NULL);`);
    const insert = old.prepare('INSERT INTO "rm/deliveries" VALUES (?, ?, ?)');
    for (let i = 0; i < 150; i++)
      insert.run(`d${i}`, JSON.stringify({ orgId: 'o', status: i % 3 ? 'delivered' : 'failed', to: `receiver-${i}.example.test` }), i + 1);
    old.close();

    const db = new Database(file);
    db.pragma('journal_mode = WAL');
    const store = new SqliteReadStore(db);
    expect(store.rebuilt).toMatchObject({ documents: 151 });
    const definitions = db.prepare<[], string>("SELECT sql FROM sqlite_master WHERE type = 'table' AND name LIKE 'rm%'").pluck().all();
    expect(definitions).toHaveLength(2);
    for (const sql of definitions) expect(sql).not.toMatch(/WITHOUT ROWID/);
    expect(await store.getVersioned('deliveries', 'd7')).toEqual({ doc: { orgId: 'o', status: 'delivered', to: 'receiver-7.example.test' }, position: 8 });
    expect(await store.getVersioned('tools', 't')).toEqual({ doc: { v: 1 }, position: 0 });
    expect(await store.count('deliveries', { orgId: 'o', status: 'failed' })).toBe(50);
    const plan = db
      .prepare(`EXPLAIN QUERY PLAN SELECT doc FROM "rm/deliveries" WHERE json_extract(doc, '$.orgId') = 'o' AND json_extract(doc, '$.status') = 'failed'`)
      .all() as Array<{ detail: string }>;
    expect(plan.map((p) => p.detail).join(' | ')).toMatch(/USING INDEX rm\/deliveries\/orgId,status/);
    // Ties by first write (find's order) read in index order, as on a table created by this release.
    const sorted = db
      .prepare(`EXPLAIN QUERY PLAN SELECT doc FROM "rm/deliveries" WHERE json_extract(doc, '$.orgId') = 'o' ORDER BY json_extract(doc, '$.status'), rowid`)
      .all() as Array<{ detail: string }>;
    expect(sorted.map((p) => p.detail).join(' | ')).not.toMatch(/TEMP B-TREE/);
    // The positions still guard redeliveries.
    await store.commit([{ op: 'put', collection: 'deliveries', id: 'd7', doc: { orgId: 'o', status: 'stale' }, position: 8 }]);
    expect(await store.get('deliveries', 'd7')).toMatchObject({ status: 'delivered' });
    db.pragma('wal_checkpoint(TRUNCATE)');
    // Once, in the rebuilt table: none left behind in the old table's pages.
    expect(readFileSync(file).toString('latin1').split('receiver-17.example.test').length - 1).toBe(1);
    // A second process opening the file finds it done.
    expect(new SqliteReadStore(db).rebuilt).toBeUndefined();
    await store.close();
    db.close();
  });

  it('reads a clustered file through a read-only connection as it is (replay looks at the recorded chain so), ties by id', async () => {
    const { file, db: old } = walFile();
    old.exec(`CREATE TABLE projection_checkpoints (projection TEXT PRIMARY KEY, position INTEGER NOT NULL) WITHOUT ROWID;
              CREATE TABLE "rm/links" (id TEXT PRIMARY KEY, doc TEXT NOT NULL, position INTEGER) WITHOUT ROWID;
              INSERT INTO "rm/links" VALUES ('o:3', '{"seq":3,"org":"o"}', 9), ('o:1', '{"seq":1,"org":"o"}', 7), ('o:2', '{"seq":1,"org":"o"}', 8);`);
    old.close();
    const db = new Database(file, { readonly: true });
    const store = new SqliteReadStore(db);
    expect(store.rebuilt).toBeUndefined();
    expect(await store.find('links', { org: 'o' }, { sort: [{ field: 'seq', direction: 'asc' }] })).toEqual([
      { seq: 1, org: 'o' },
      { seq: 1, org: 'o' },
      { seq: 3, org: 'o' },
    ]);
    expect(await store.find('links', {}, { skip: 2 })).toEqual([{ seq: 3, org: 'o' }]);
    db.close();
    const again = new Database(file);
    expect(again.prepare(`SELECT sql FROM sqlite_master WHERE name = 'rm/links'`).pluck().get()).toMatch(/WITHOUT ROWID/);
    again.close();
  });

  it('purgeEarlierVersions leaves no earlier version of a rewritten document in the file or its WAL', async () => {
    const { file, db } = walFile();
    const store = new SqliteReadStore(db);
    const secret = 'erased-person@example.test';
    await store.commit([{ op: 'put', collection: 'identity_users', id: 'u1', doc: { email: secret }, position: 1 }]);
    db.pragma('wal_checkpoint(PASSIVE)');
    await store.commit([{ op: 'put', collection: 'identity_users', id: 'u1', doc: { email: null }, position: 2 }]);
    const onDisk = () => ['', '-wal'].filter((suffix) => existsSync(file + suffix) && readFileSync(file + suffix).includes(secret));
    // The rewrite went to the WAL; the file (and the WAL's earlier frames) still hold the page as it was.
    expect(onDisk()).toContain('');
    await store.purgeEarlierVersions();
    expect(onDisk()).toEqual([]);
    expect(await store.get('identity_users', 'u1')).toEqual({ email: null });
    await store.close();
    db.close();
  });

  it('leaves no copy of a long document in the pages its rewrite frees: its overflow pages are zeroed, not only its cell', async () => {
    const { file, db } = walFile();
    const store = new SqliteReadStore(db);
    const secret = 'https://media.example/erased-person-album/cat.jpg?…';
    // A child-safety report: its reasons and media URLs past the first kilobyte live in overflow pages.
    const report = { incident: { note: 'context '.repeat(600) }, mediaUrls: Array.from({ length: 8 }, () => secret) };
    await store.commit([{ op: 'put', collection: 'child_safety_reports', id: 'r1', doc: report, position: 1 }]);
    // As in a file in use for a while: the document was copied from the WAL into the file.
    db.pragma('wal_checkpoint(TRUNCATE)');
    await store.commit([{ op: 'put', collection: 'child_safety_reports', id: 'r1', doc: { incident: null, mediaUrls: null }, position: 2 }]);
    await store.purgeEarlierVersions();
    // Nothing reused the freed pages: they are on the free list, zeroed.
    expect(db.pragma('freelist_count', { simple: true })).toBeGreaterThan(0);
    expect(['', '-wal'].filter((suffix) => existsSync(file + suffix) && readFileSync(file + suffix).includes(secret))).toEqual([]);
    await store.close();
    db.close();
  });

  it('moves the documents of a file older still, written before documents carried positions', async () => {
    const db = new Database(':memory:');
    db.exec(`CREATE TABLE read_models (collection TEXT NOT NULL, id TEXT NOT NULL, doc TEXT NOT NULL, PRIMARY KEY (collection, id)) WITHOUT ROWID;
             INSERT INTO read_models VALUES ('c', 'old', '{"v":1}');`);
    const store = new SqliteReadStore(db);
    expect(await store.getVersioned('c', 'old')).toEqual({ doc: { v: 1 }, position: 0 });
    await store.commit([{ op: 'put', collection: 'c', id: 'old', doc: { v: 2 }, position: 3 }]);
    expect(await store.getVersioned('c', 'old')).toEqual({ doc: { v: 2 }, position: 3 });
    db.close();
  });
});

describe('SqliteReadStore collections', () => {
  it('reads a collection nobody has written to as empty, and one another connection created since', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'warden-readstore-')), 'warden.db');
    const a = new Database(file);
    const b = new Database(file);
    const reader = new SqliteReadStore(a);
    const writer = new SqliteReadStore(b);
    expect(await reader.get('later', 'x')).toBeUndefined();
    expect(await reader.find('later', { v: 1 })).toEqual([]);
    expect(await reader.count('later')).toBe(0);
    await expect(reader.find('later', { 'bad field': 1 })).rejects.toThrow(/field name/);
    await writer.commit([{ op: 'put', collection: 'later', id: 'x', doc: { v: 1 } }]);
    expect(await reader.get('later', 'x')).toEqual({ v: 1 });
    expect(await reader.count('later', { v: 1 })).toBe(1);
    await reader.close();
    await writer.close();
    a.close();
    b.close();
  });

  it('looks a missing collection up in sqlite_master once, and again only after some connection created a table', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'warden-readstore-')), 'warden.db');
    const a = new Database(file);
    const b = new Database(file);
    let lookups = 0;
    const prepare = a.prepare.bind(a);
    // The narrowest seam: count the executions of the store's table look-up.
    a.prepare = ((sql: string) => {
      const statement = prepare(sql);
      if (!sql.includes('sqlite_master')) return statement;
      const get = statement.get.bind(statement);
      statement.get = ((...args: unknown[]) => (lookups++, get(...args))) as typeof statement.get;
      return statement;
    }) as typeof a.prepare;
    const reader = new SqliteReadStore(a);
    const writer = new SqliteReadStore(b);
    const before = lookups;
    for (let i = 0; i < 100; i++) expect(await reader.get('never', `x${i}`)).toBeUndefined();
    expect(lookups - before).toBe(1);
    await writer.commit([{ op: 'put', collection: 'elsewhere', id: 'y', doc: { v: 1 } }]);
    expect(await reader.get('never', 'x')).toBeUndefined();
    expect(lookups - before).toBe(2);
    await writer.commit([{ op: 'put', collection: 'never', id: 'x', doc: { v: 2 } }]);
    expect(await reader.get('never', 'x')).toEqual({ v: 2 });
    await reader.close();
    await writer.close();
    a.close();
    b.close();
  });

  it("lets a job whose failure took back the table it created fail alone: the group's next jobs create it again", async () => {
    const db = new Database(':memory:');
    const store = new SqliteReadStore(db);
    const [failed, put, removed] = await Promise.allSettled([
      store.commit([
        { op: 'put', collection: 'fresh', id: 'a', doc: { v: 1 } },
        { op: 'put', collection: 'fresh', id: 'b', doc: { v: 1n } as never },
      ]),
      store.commit([{ op: 'put', collection: 'fresh', id: 'c', doc: { v: 3 } }]),
      store.commit([{ op: 'delete', collection: 'fresh', id: 'c' }]),
    ]);
    expect(failed.status).toBe('rejected');
    expect(put.status).toBe('fulfilled');
    expect(removed.status).toBe('fulfilled');
    expect(await store.get('fresh', 'a')).toBeUndefined();
    expect(await store.get('fresh', 'c')).toBeUndefined();
    await store.commit([{ op: 'put', collection: 'fresh', id: 'd', doc: { v: 4 } }]);
    expect(await store.get('fresh', 'd')).toEqual({ v: 4 });
    db.close();
  });

  it('forgets a table whose creating commit failed, and creates it again on the next write', async () => {
    const db = new Database(':memory:');
    const store = new SqliteReadStore(db);
    // The table is created, then the document cannot be written: the savepoint takes the table back too.
    const failed = store.commit([{ op: 'put', collection: 'fresh', id: 'a', doc: { v: 1n } as never }]);
    await expect(failed).rejects.toThrow(/BigInt/);
    expect(db.prepare("SELECT name FROM sqlite_master WHERE name = 'rm/fresh'").get()).toBeUndefined();
    expect(await store.get('fresh', 'a')).toBeUndefined();
    await store.commit([{ op: 'put', collection: 'fresh', id: 'a', doc: { v: 2 } }]);
    expect(await store.get('fresh', 'a')).toEqual({ v: 2 });
    db.close();
  });
});

describe('SqliteReadStore while another process writes', () => {
  let connections: Database.Database[] = [];
  const freshFile = () => join(mkdtempSync(join(tmpdir(), 'warden-readstore-')), 'warden.db');
  const open = (file: string) => {
    const db = new Database(file);
    db.pragma('journal_mode = WAL');
    db.pragma('busy_timeout = 5000');
    connections.push(db);
    return db;
  };
  afterEach(() => {
    for (const db of connections) if (db.open) db.close();
    connections = [];
  });

  it('waits for the write lock without blocking the event loop; a conflicting checkpoint move fails only its own commit', async () => {
    const file = freshFile();
    const store = new SqliteReadStore(open(file));
    await store.commit([], { projection: 'p', from: 0, to: 1 });
    const other = open(file);
    other.exec('BEGIN IMMEDIATE');
    const settled: string[] = [];
    const moved = store.commit([{ op: 'put', collection: 'c', id: 'a', doc: { v: 1 }, position: 2 }], { projection: 'p', from: 1, to: 2 });
    const stale = store.commit([{ op: 'put', collection: 'c', id: 'b', doc: { v: 1 }, position: 2 }], { projection: 'p', from: 1, to: 2 });
    void moved.finally(() => settled.push('moved')).catch(() => undefined);
    void stale.finally(() => settled.push('stale')).catch(() => undefined);
    // SQLite's busy handler would hold the whole process here until its timeout, then fail.
    let ticks = 0;
    const timer = setInterval(() => ticks++, 1);
    await waitFor(() => ticks >= 3, 'a timer to tick while the write lock is held elsewhere').finally(() => clearInterval(timer));
    expect(settled).toEqual([]);
    other.exec('COMMIT');
    await expect(moved).resolves.toBeUndefined();
    await expect(stale).rejects.toBeInstanceOf(CheckpointConflictError);
    const reader = new SqliteReadStore(other);
    expect(await reader.checkpoint('p')).toBe(2);
    expect(await reader.get('c', 'a')).toEqual({ v: 1 });
    expect(await reader.get('c', 'b')).toBeUndefined();
    await store.close();
  });
});
