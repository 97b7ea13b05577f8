import type Database from 'better-sqlite3';
import { emptyWal, SqliteGroupCommit } from '#warden/sqlite';
import {
  CheckpointConflictError,
  type CheckpointMove,
  type CountOptions,
  type Filter,
  type FindOptions,
  isRange,
  type ReadStore,
  type VersionedDocument,
  type Write,
} from '../read-store.port.js';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS projection_checkpoints (
  projection TEXT PRIMARY KEY,
  position   INTEGER NOT NULL
) WITHOUT ROWID;`;

const FIELD = /^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$/;

const COLLECTION = /^[A-Za-z0-9_]+$/;

function collectionName(collection: string): string {
  if (!COLLECTION.test(collection)) throw new Error(`Invalid read-model collection name: ${collection}`);
  return collection;
}

/**
 * A collection's table, quoted. The slash cannot occur in a collection name or a field path, so
 * no table name can collide with another's, or with an index name (`rm/<collection>/<fields>`).
 */
const tableName = (collection: string) => `rm/${collectionName(collection)}`;
const tableOf = (collection: string) => `"${tableName(collection)}"`;
/** An index's name: its table and its fields (`rm/<collection>/<field>,<field>`). */
const indexName = (collection: string, fields: readonly string[]) => `${tableName(collection)}/${fields.map((f) => jsonPath(f).slice(2)).join(',')}`;

function jsonPath(field: string): string {
  if (!FIELD.test(field)) throw new Error(`Invalid field name in read-model query: ${field}`);
  return `$.${field}`;
}

interface CollectionStatements {
  /**
   * Clustered by id (WITHOUT ROWID, as releases before 2026-11-30 created them): a table an
   * earlier release's process created beside this one, or one a read-only connection could not
   * rebuild. It has no rowid, and its index entries end with the id: ties go by id there.
   */
  readonly clustered: boolean;
  readonly get: Database.Statement<[string], { doc: string; position: number | null }>;
  readonly put: Database.Statement<[string, string, number | null]>;
  readonly delete: Database.Statement<[string, number | null, number | null]>;
}

/** What opening a file of an earlier release moved (see moveSharedTable). */
export interface SharedTableMove {
  readonly documents: number;
  readonly ms: number;
}

/**
 * Read models in the embedded file: a table of JSON documents per collection, queried with
 * json_extract. A table of its own (rather than one table for every collection) keeps each
 * collection's keys short and its B-tree its own, and a write touches only that collection's
 * indexes: a third less time per write than one shared table with partial indexes, measured.
 * Its own connection, so a projection's transaction never mixes with the log's group commits.
 * Commits wait for another process's write lock without blocking the event loop (SqliteGroupCommit),
 * each in a savepoint of its own: a commit whose checkpoint move conflicts fails alone.
 */
export class SqliteReadStore implements ReadStore {
  /** Set when this connection moved an earlier release's shared table, for the process to say so. */
  readonly moved: SharedTableMove | undefined;
  /** Set when this connection rebuilt an earlier release's clustered tables (see rebuildClusteredTables). */
  readonly rebuilt: SharedTableMove | undefined;
  private readonly stmt;
  private readonly queries = new Map<string, Database.Statement>();
  private readonly collections = new Map<string, CollectionStatements>();
  /**
   * Collections found missing, at the schema version of that look-up. A projection may read a
   * collection nobody ever writes on this data directory (the audit chain's v1 links on a fresh
   * one) for every event: sqlite_master has no index on the name, so each look-up scanned it
   * (5 % of a flood's CPU, measured). SQLite's schema version (a field of the file's header)
   * changes whenever any connection creates a table, and only then is the name looked up again.
   */
  private readonly missing = new Map<string, number>();
  private readonly writes: SqliteGroupCommit;
  /**
   * Whether this connection holds the read transaction of the current event-loop turn (read).
   * A read outside a transaction begins and ends one of its own: 8.5–11 µs a read by id against
   * 2.4–5 µs inside one (measured), and a projection reads a document or two for most events.
   */
  private reading = false;
  private readonly readsShareTurn: boolean;
  private readonly endReadSoon = () => this.endRead();

  /**
   * `readsShareTurn`: reads of one event-loop turn share a read transaction (read). Only for a
   * connection that projections alone read (the read-model thread's): a projection reads its own
   * documents, which its own commits make visible at once. A request or a reactor must see what
   * was committed before it was told of it (another thread's catch-up, a CLI's apply before the
   * request came): for them every read stays a transaction of its own.
   */
  constructor(
    private readonly db: Database.Database,
    options: { readonly readsShareTurn?: boolean } = {},
  ) {
    this.readsShareTurn = options.readsShareTurn ?? false;
    // A GDPR deletion purges plaintext copies (a console user's email, a child-safety report's
    // reasons) by rewriting documents: the old bytes must stay behind neither in their page nor in
    // a free page. ON zeroes both. FAST zeroed only what costs no extra I/O: a cell rewritten in
    // place, but not the overflow pages of a document over about 1 KB, nor pages a B-tree balance
    // frees, which went to the free list with their text. Measured on documents of 0.2 to 3 KB
    // rewritten and deleted: the same WAL bytes within 0.1 %, the same time within the noise (pages
    // freed and reused by one commit are written once either way). The eraser then empties the WAL.
    db.pragma('secure_delete = ON');
    db.exec(SCHEMA);
    this.moved = moveSharedTable(db);
    this.rebuilt = rebuildClusteredTables(db);
    this.writes = new SqliteGroupCommit(db, { beforeBegin: () => this.endRead() });
    this.stmt = {
      beginRead: db.prepare('BEGIN'),
      endRead: db.prepare('COMMIT'),
      tableDefinition: db.prepare<[string], string>("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?").pluck(),
      schemaVersion: db.prepare<[], number>('PRAGMA schema_version').pluck(),
      checkpoint: db.prepare<[string], { position: number }>('SELECT position FROM projection_checkpoints WHERE projection = ?'),
      setCheckpoint: db.prepare('INSERT OR REPLACE INTO projection_checkpoints (projection, position) VALUES (?, ?)'),
    };
  }

  async get<T extends object>(collection: string, id: string): Promise<T | undefined> {
    this.read();
    const row = this.existing(collection)?.get.get(id);
    return row ? (JSON.parse(row.doc) as T) : undefined;
  }

  async getVersioned<T extends object>(collection: string, id: string): Promise<VersionedDocument<T> | undefined> {
    this.read();
    const row = this.existing(collection)?.get.get(id);
    return row ? { doc: JSON.parse(row.doc) as T, position: row.position ?? 0 } : undefined;
  }

  async find<T extends object>(collection: string, filter: Filter = {}, options: FindOptions = {}): Promise<T[]> {
    // Built (and so checked) first: a bad field name fails whether or not the collection has a table yet.
    const { where, params } = whereClause(filter);
    const sort = options.sort ?? [];
    const direction = (s: { direction: 'asc' | 'desc' } | undefined) => (s?.direction === 'desc' ? 'DESC' : 'ASC');
    const keys = sort.map((s) => `json_extract(doc, '${jsonPath(s.field)}') ${direction(s)}`);
    this.read();
    const statements = this.existing(collection);
    if (!statements) return [];
    // Ties (and an unsorted find) in the order documents were first written, reversed after a
    // descending key: a rowid table's index entries end with the rowid, so a sorted read of a long
    // queue reads its index in order, either way, and stops at the limit. Ending every index with
    // the id instead doubled the time of a write (tableDefinition): equal keys then went into
    // random places by id. By id when asked (byId), or on a clustered table.
    const tie = options.byId || statements.clustered ? 'id ASC' : `rowid ${direction(sort.at(-1))}`;
    const order = keys.concat(tie).join(', ');
    // `LIMIT +?`: a bare bound LIMIT has SQLite prepare the statement again at every execution
    // (the event store's statements say why).
    const sql = `SELECT doc FROM ${tableOf(collection)} WHERE ${where} ORDER BY ${order} LIMIT +? OFFSET +?`;
    const rows = this.query(sql).all(...params, options.limit ?? -1, options.skip ?? 0) as { doc: string }[];
    return rows.map((r) => JSON.parse(r.doc) as T);
  }

  async count(collection: string, filter: Filter = {}, options: CountOptions = {}): Promise<number> {
    const { where, params } = whereClause(filter);
    this.read();
    if (!this.existing(collection)) return 0;
    if (options.limit === undefined) return (this.query(`SELECT count(*) AS n FROM ${tableOf(collection)} WHERE ${where}`).get(...params) as { n: number }).n;
    const sql = `SELECT count(*) AS n FROM (SELECT 1 FROM ${tableOf(collection)} WHERE ${where} LIMIT +?)`;
    return (this.query(sql).get(...params, options.limit) as { n: number }).n;
  }

  /** An expression index per (collection, fields) on the collection's table. */
  async ensureIndex(collection: string, fields: readonly string[]): Promise<void> {
    this.endRead();
    const name = indexName(collection, fields);
    const columns = fields.map((f) => `json_extract(doc, '${jsonPath(f)}')`).join(', ');
    this.db.exec(`${createTable(collection)}; CREATE INDEX IF NOT EXISTS "${name}" ON ${tableOf(collection)} (${columns})`);
  }

  async dropIndex(collection: string, fields: readonly string[]): Promise<boolean> {
    this.endRead();
    const name = indexName(collection, fields);
    const exists = this.db.prepare<[string], number>("SELECT count(*) FROM sqlite_master WHERE type = 'index' AND name = ?").pluck().get(name) === 1;
    if (exists) this.db.exec(`DROP INDEX IF EXISTS "${name}"`);
    return exists;
  }

  /**
   * With readsShareTurn, reads of one turn of the event loop share one read transaction: begun by
   * the first, ended when the turn's immediates run, or before anything else uses the connection
   * (a group of writes takes the lock: beforeBegin; an index build; the WAL's truncation; close).
   * A read in the turn sees what was committed when the turn's first read began, as if made a
   * moment earlier: writes of this connection end the transaction first, so a projection always
   * reads its own commits. Held for one turn at most, it never keeps the WAL from being
   * checkpointed for long (a GDPR deletion's emptying of it under load: docs/benchmarks.md).
   */
  private read(): void {
    if (!this.readsShareTurn || this.reading || this.db.inTransaction) return;
    this.stmt.beginRead.run();
    this.reading = true;
    setImmediate(this.endReadSoon);
  }

  private endRead(): void {
    if (!this.reading) return;
    this.reading = false;
    if (this.db.open && this.db.inTransaction) this.stmt.endRead.run();
  }

  /**
   * Queries are built from their filter's fields, so the same few SQL texts recur (the catalog is
   * re-read every second): each is prepared once. SQLite re-prepares a statement by itself when an
   * index it could use appears.
   */
  private query(sql: string): Database.Statement {
    let statement = this.queries.get(sql);
    if (!statement) {
      if (this.queries.size >= 256) this.queries.clear();
      statement = this.db.prepare(sql);
      this.queries.set(sql, statement);
    }
    return statement;
  }

  /** The collection's statements, or undefined while no process has written to it (no table yet). */
  private existing(collection: string): CollectionStatements | undefined {
    const known = this.collections.get(collection);
    if (known) return known;
    // A table another process created since is found here, once the schema version says one was.
    const version = this.stmt.schemaVersion.get() as number;
    if (this.missing.get(collection) === version) return undefined;
    const definition = this.stmt.tableDefinition.get(tableName(collection));
    if (definition === undefined) {
      this.missing.set(collection, version);
      return undefined;
    }
    this.missing.delete(collection);
    return this.statementsFor(collection, definition);
  }

  /** Inside a write transaction: creates the collection's table on its first write (noted in `created`). */
  private writable(collection: string, created: string[]): CollectionStatements {
    const known = this.collections.get(collection);
    if (known) return known;
    this.db.exec(createTable(collection));
    created.push(collection);
    // Clustered after all when an earlier release's process created it first.
    return this.statementsFor(collection, this.stmt.tableDefinition.get(tableName(collection))!);
  }

  /** `definition`: the table's CREATE statement as sqlite_master keeps it. */
  private statementsFor(collection: string, definition: string): CollectionStatements {
    const table = tableOf(collection);
    const statements: CollectionStatements = {
      clustered: CLUSTERED.test(definition),
      get: this.db.prepare(`SELECT doc, position FROM ${table} WHERE id = ?`),
      // A positioned write never takes a document back to an earlier or equal position.
      put: this.db.prepare(
        `INSERT INTO ${table} (id, doc, position) VALUES (?, ?, ?)
         ON CONFLICT (id) DO UPDATE SET doc = excluded.doc, position = excluded.position
         WHERE excluded.position IS NULL OR ${table}.position IS NULL OR ${table}.position < excluded.position`,
      ),
      delete: this.db.prepare(`DELETE FROM ${table} WHERE id = ? AND (? IS NULL OR position IS NULL OR position < ?)`),
    };
    this.collections.set(collection, statements);
    return statements;
  }

  async commit(writes: readonly Write[], checkpoint?: CheckpointMove): Promise<void> {
    const created: string[] = [];
    try {
      await this.writes.run(() => {
        try {
          if (checkpoint) {
            const actual = this.stmt.checkpoint.get(checkpoint.projection)?.position ?? 0;
            if (actual !== checkpoint.from) throw new CheckpointConflictError(checkpoint.projection, checkpoint.from, actual);
            this.stmt.setCheckpoint.run(checkpoint.projection, checkpoint.to);
          }
          for (const w of writes) {
            const position = w.position ?? null;
            if (w.op === 'put') this.writable(w.collection, created).put.run(w.id, JSON.stringify(w.doc), position);
            else this.existing(w.collection)?.delete.run(w.id, position, position);
          }
        } catch (error) {
          // Its savepoint takes back the tables it created: forgotten at once, before the group's
          // next job could take their statements for usable.
          this.forget(created);
          throw error;
        }
      });
    } catch (error) {
      // Or the whole group's commit failed, with the same effect.
      this.forget(created);
      throw error;
    }
  }

  private forget(collections: readonly string[]): void {
    for (const c of collections) this.collections.delete(c);
  }

  async checkpoint(projection: string): Promise<number> {
    this.read();
    return this.stmt.checkpoint.get(projection)?.position ?? 0;
  }

  async reset(collections: readonly string[], projections: readonly string[]): Promise<void> {
    await this.writes.run(() => {
      for (const c of collections) if (this.existing(c)) this.db.exec(`DELETE FROM ${tableOf(c)}`);
      for (const p of projections) this.stmt.setCheckpoint.run(p, 0);
    });
  }

  async purgeEarlierVersions(): Promise<void> {
    this.endRead();
    await emptyWal(this.db, 'Purged read models');
  }

  async ping(): Promise<void> {
    this.db.prepare('SELECT 1').get();
  }

  /** Finishes the commits still queued behind another process's lock; call before the connection closes. */
  async close(): Promise<void> {
    this.endRead();
    this.writes.close();
  }
}

/**
 * A rowid table, not WITHOUT ROWID: documents are stored in the order they are first written and
 * the id's own index holds only the id. Clustered by id (as collections were until 2026-11-30),
 * every new document of a random id (a delivery's, a statement of reasons') went into a random
 * leaf page with its whole text, about ten documents to a page: a commit dirtied a page per
 * document, written to the WAL and again by the checkpoint. Measured (docs/benchmarks.md, "Floods
 * and long histories", sixth session): 50 against 19 µs a write into an empty collection with no
 * index, 97 against 49 µs after 100,000 documents, and a spread's server CPU per item down by a
 * tenth. A read by id costs one look-up more (the id's index, then the row).
 */
const tableDefinition = (quotedName: string) => `${quotedName} (id TEXT PRIMARY KEY, doc TEXT NOT NULL, position INTEGER)`;

const createTable = (collection: string) => `CREATE TABLE IF NOT EXISTS ${tableDefinition(tableOf(collection))}`;

/** The end of a table definition clustered by its key, as releases before 2026-11-30 created collections' tables. */
export const CLUSTERED = /\)\s*WITHOUT\s+ROWID\s*$/i;

/**
 * Collections' tables written by releases before 2026-11-30 were clustered by id (WITHOUT ROWID):
 * each is rebuilt once as a rowid table (tableDefinition says why), its documents, positions and
 * indexes unchanged, under the write lock like moveSharedTable. Its old pages go to the free list
 * zeroed (secure_delete, set before this runs).
 */
function rebuildClusteredTables(db: Database.Database): SharedTableMove | undefined {
  // A read-only connection (replay's look at the recorded chain) reads them as they are.
  if (db.readonly) return undefined;
  const tables = db.prepare<[], { name: string; sql: string }>("SELECT name, sql FROM sqlite_master WHERE type = 'table' AND name LIKE 'rm/%'");
  const clustered = () => tables.all().filter((t) => CLUSTERED.test(t.sql));
  if (clustered().length === 0) return undefined;
  return movedUnderLock(db, () => {
    let documents = 0;
    // Read again under the lock: another process may have rebuilt them while this one waited.
    for (const { name } of clustered()) {
      const collection = name.slice('rm/'.length);
      const table = tableOf(collection);
      // The slash keeps this name apart from every collection's table and index (tableName).
      const rebuilding = `"rm-rebuilding/${collection}"`;
      const indexes = db.prepare<[string], string>("SELECT sql FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND sql IS NOT NULL").pluck().all(name);
      db.exec(`DROP TABLE IF EXISTS ${rebuilding}; CREATE TABLE ${tableDefinition(rebuilding)}`);
      documents += db.prepare(`INSERT INTO ${rebuilding} (id, doc, position) SELECT id, doc, position FROM ${table}`).run().changes;
      db.exec(`DROP TABLE ${table}; ALTER TABLE ${rebuilding} RENAME TO ${table}`);
      // Each index's text names the table by its own name, which the rebuilt table now has.
      for (const sql of indexes) db.exec(sql);
    }
    return documents;
  });
}

/**
 * Runs `move` (which returns how many documents it moved) in one IMMEDIATE transaction, waiting
 * for the write lock as long as it takes (moving a million documents takes seconds, and so may
 * another process's move), and times it. Undefined when it moved nothing: another process did it
 * while this one waited for the lock.
 */
export function movedUnderLock(db: Database.Database, move: () => number): SharedTableMove | undefined {
  const started = performance.now();
  const busyTimeout = Number(db.pragma('busy_timeout', { simple: true }));
  db.pragma('busy_timeout = 600000');
  try {
    const documents = db.transaction(move).immediate();
    return documents > 0 ? { documents, ms: Math.round(performance.now() - started) } : undefined;
  } finally {
    db.pragma(`busy_timeout = ${busyTimeout}`);
  }
}

/**
 * Files written before collections had tables of their own keep every document in one table,
 * `read_models`: they move to their collections' tables once, on open. Several processes may
 * open such a file at once: one moves them under the write lock, the others find it done. The
 * wait for the lock is generous: moving a million documents takes seconds. Indexes are created
 * again by the projections (ensureIndex) as they start.
 */
function moveSharedTable(db: Database.Database): SharedTableMove | undefined {
  if (db.readonly) return undefined;
  const shared = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'read_models'");
  const exists = () => shared.get() !== undefined;
  if (!exists()) return undefined;
  // The old table's pages go to the free list zeroed (secure_delete, as the store runs), so that
  // no document a GDPR deletion rewrites later (a console user's email) survives in them.
  return movedUnderLock(db, () => {
    let documents = 0;
    if (!exists()) return documents;
    // Files older still had no position column: their documents were written without one.
    const hasPosition = db
      .prepare<[], { name: string }>("SELECT name FROM pragma_table_info('read_models')")
      .all()
      .some((c) => c.name === 'position');
    const collections = db.prepare<[], { collection: string }>('SELECT DISTINCT collection FROM read_models').all();
    // Every name in it passed collectionName when written (tableOf checks it again).
    for (const { collection } of collections) {
      db.exec(createTable(collection));
      documents += db
        .prepare(
          `INSERT INTO ${tableOf(collection)} (id, doc, position) SELECT id, doc, ${hasPosition ? 'position' : 'NULL'} FROM read_models WHERE collection = ?`,
        )
        .run(collection).changes;
    }
    db.exec('DROP TABLE read_models');
    // An earlier release opening the file would create an empty read_models and serve nothing
    // from it, its checkpoints saying all is applied: a view in its place makes it fail at start
    // ("cannot add a column to a view") instead.
    db.exec("CREATE VIEW read_models AS SELECT 'moved to a table per collection (rm/<collection>)' AS moved");
    return documents;
  });
}

function whereClause(filter: Filter): { where: string; params: unknown[] } {
  const parts = ['1'];
  const params: unknown[] = [];
  for (const [field, value] of Object.entries(filter)) {
    if (value === null) {
      parts.push(`json_extract(doc, '${jsonPath(field)}') IS NULL`);
    } else if (isRange(value)) {
      const path = jsonPath(field);
      for (const [op, bound] of [
        ['<', value.lt],
        ['>=', value.gte],
      ] as const) {
        if (bound === undefined) continue;
        parts.push(`json_extract(doc, '${path}') ${op} +?`);
        params.push(bound);
      }
      // SQLite orders every number before every text; a bound matches only values of its own type.
      // typeof() of the indexed expression costs nothing more, where json_type() parses the document.
      const types = [value.lt, value.gte].some((b) => typeof b === 'string') ? "('text')" : "('integer', 'real')";
      if (value.lt !== undefined || value.gte !== undefined) parts.push(`typeof(json_extract(doc, '${path}')) IN ${types}`);
    } else {
      // `+?`, not `?`: a bare parameter compared with an indexed expression makes SQLite (STAT4)
      // prepare the statement anew at every execution (statement-reprepare.spec.ts); same plan.
      parts.push(`json_extract(doc, '${jsonPath(field)}') = +?`);
      // json_extract yields 1/0 for JSON booleans.
      params.push(typeof value === 'boolean' ? (value ? 1 : 0) : value);
    }
  }
  return { where: parts.join(' AND '), params };
}
