import type Database from 'better-sqlite3';
import { SqliteGroupCommit } from '#warden/sqlite';
import {
  CheckpointConflictError,
  type CheckpointMove,
  type Filter,
  type FindOptions,
  isRange,
  type ReadStore,
  type VersionedDocument,
  type Write,
} from '../read-store.port.js';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS read_models (
  collection TEXT NOT NULL,
  id         TEXT NOT NULL,
  doc        TEXT NOT NULL,
  position   INTEGER,
  PRIMARY KEY (collection, id)
) WITHOUT ROWID;
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

function jsonPath(field: string): string {
  if (!FIELD.test(field)) throw new Error(`Invalid field name in read-model query: ${field}`);
  return `$.${field}`;
}

/**
 * Read models in the embedded file: one table of JSON documents, queried with json_extract.
 * Its own connection, so a projection's transaction never mixes with the log's group commits.
 * Commits wait for another process's write lock without blocking the event loop (SqliteGroupCommit),
 * each in a savepoint of its own: a commit whose checkpoint move conflicts fails alone.
 */
export class SqliteReadStore implements ReadStore {
  private readonly stmt;
  private readonly queries = new Map<string, Database.Statement>();
  private readonly writes: SqliteGroupCommit;

  constructor(private readonly db: Database.Database) {
    // A GDPR deletion purges plaintext copies (a console user's email) by rewriting documents: the
    // old bytes must not stay behind in the page as free space. FAST zeroes what costs no extra I/O,
    // which covers a document rewritten in place; the eraser then truncates the WAL.
    db.pragma('secure_delete = FAST');
    db.exec(SCHEMA);
    addPositionColumn(db);
    this.writes = new SqliteGroupCommit(db);
    this.stmt = {
      get: db.prepare<[string, string], { doc: string; position: number | null }>(
        'SELECT doc, position FROM read_models WHERE collection = ? AND id = ?',
      ),
      // A positioned write never takes a document back to an earlier or equal position.
      put: db.prepare(
        `INSERT INTO read_models (collection, id, doc, position) VALUES (?, ?, ?, ?)
         ON CONFLICT (collection, id) DO UPDATE SET doc = excluded.doc, position = excluded.position
         WHERE excluded.position IS NULL OR read_models.position IS NULL OR read_models.position < excluded.position`,
      ),
      delete: db.prepare(
        'DELETE FROM read_models WHERE collection = ? AND id = ? AND (? IS NULL OR position IS NULL OR position < ?)',
      ),
      deleteCollection: db.prepare('DELETE FROM read_models WHERE collection = ?'),
      checkpoint: db.prepare<[string], { position: number }>(
        'SELECT position FROM projection_checkpoints WHERE projection = ?',
      ),
      setCheckpoint: db.prepare('INSERT OR REPLACE INTO projection_checkpoints (projection, position) VALUES (?, ?)'),
    };
  }

  async get<T extends object>(collection: string, id: string): Promise<T | undefined> {
    const row = this.stmt.get.get(collection, id);
    return row ? (JSON.parse(row.doc) as T) : undefined;
  }

  async getVersioned<T extends object>(collection: string, id: string): Promise<VersionedDocument<T> | undefined> {
    const row = this.stmt.get.get(collection, id);
    return row ? { doc: JSON.parse(row.doc) as T, position: row.position ?? 0 } : undefined;
  }

  async find<T extends object>(collection: string, filter: Filter = {}, options: FindOptions = {}): Promise<T[]> {
    const { where, params } = whereClause(collection, filter);
    const order = (options.sort ?? [])
      .map((s) => `json_extract(doc, '${jsonPath(s.field)}') ${s.direction === 'desc' ? 'DESC' : 'ASC'}`)
      .concat('id ASC')
      .join(', ');
    const sql = `SELECT doc FROM read_models WHERE ${where} ORDER BY ${order} LIMIT ? OFFSET ?`;
    const rows = this.query(sql).all(...params, options.limit ?? -1, options.skip ?? 0) as { doc: string }[];
    return rows.map((r) => JSON.parse(r.doc) as T);
  }

  async count(collection: string, filter: Filter = {}): Promise<number> {
    const { where, params } = whereClause(collection, filter);
    return (this.query(`SELECT count(*) AS n FROM read_models WHERE ${where}`).get(...params) as { n: number }).n;
  }

  /**
   * A partial expression index per (collection, fields): it holds only that collection's rows, so
   * puts to other collections never touch it. SQLite uses a partial index only when the query
   * names the same collection as a literal, which is why queries inline the collection name.
   */
  async ensureIndex(collection: string, fields: readonly string[]): Promise<void> {
    const name = `rm_${collectionName(collection)}_${fields.map((f) => jsonPath(f).slice(2).replace(/\./g, '_')).join('__')}`;
    const columns = fields.map((f) => `json_extract(doc, '${jsonPath(f)}')`).join(', ');
    this.db.exec(`CREATE INDEX IF NOT EXISTS "${name}" ON read_models (${columns}) WHERE collection = '${collectionName(collection)}'`);
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

  async commit(writes: readonly Write[], checkpoint?: CheckpointMove): Promise<void> {
    await this.writes.run(() => {
      if (checkpoint) {
        const actual = this.stmt.checkpoint.get(checkpoint.projection)?.position ?? 0;
        if (actual !== checkpoint.from) throw new CheckpointConflictError(checkpoint.projection, checkpoint.from, actual);
        this.stmt.setCheckpoint.run(checkpoint.projection, checkpoint.to);
      }
      for (const w of writes) {
        const position = w.position ?? null;
        if (w.op === 'put') this.stmt.put.run(w.collection, w.id, JSON.stringify(w.doc), position);
        else this.stmt.delete.run(w.collection, w.id, position, position);
      }
    });
  }

  async checkpoint(projection: string): Promise<number> {
    return this.stmt.checkpoint.get(projection)?.position ?? 0;
  }

  async reset(collections: readonly string[], projections: readonly string[]): Promise<void> {
    await this.writes.run(() => {
      for (const c of collections) this.stmt.deleteCollection.run(c);
      for (const p of projections) this.stmt.setCheckpoint.run(p, 0);
    });
  }

  async ping(): Promise<void> {
    this.db.prepare('SELECT 1').get();
  }

  /** Finishes the commits still queued behind another process's lock; call before the connection closes. */
  async close(): Promise<void> {
    this.writes.close();
  }
}

/** Files written before documents carried positions get the column (null: written without one). */
function addPositionColumn(db: Database.Database): void {
  const hasColumn = () =>
    db.prepare<[], { name: string }>("SELECT name FROM pragma_table_info('read_models')").all().some((c) => c.name === 'position');
  if (hasColumn()) return;
  // Several processes may open an old file at once: check again under the write lock.
  db.transaction(() => {
    if (!hasColumn()) db.exec('ALTER TABLE read_models ADD COLUMN position INTEGER');
  }).immediate();
}

function whereClause(collection: string, filter: Filter): { where: string; params: unknown[] } {
  // The collection is inlined (a checked identifier) so that its partial indexes can be used.
  const parts = [`collection = '${collectionName(collection)}'`];
  const params: unknown[] = [];
  for (const [field, value] of Object.entries(filter)) {
    if (value === null) {
      parts.push(`json_extract(doc, '${jsonPath(field)}') IS NULL`);
    } else if (isRange(value)) {
      const path = jsonPath(field);
      for (const [op, bound] of [['<', value.lt], ['>=', value.gte]] as const) {
        if (bound === undefined) continue;
        parts.push(`json_extract(doc, '${path}') ${op} ?`);
        params.push(bound);
      }
      // SQLite orders every number before every text; a bound matches only values of its own type.
      // typeof() of the indexed expression costs nothing more, where json_type() parses the document.
      const types = [value.lt, value.gte].some((b) => typeof b === 'string') ? "('text')" : "('integer', 'real')";
      if (value.lt !== undefined || value.gte !== undefined) parts.push(`typeof(json_extract(doc, '${path}')) IN ${types}`);
    } else {
      parts.push(`json_extract(doc, '${jsonPath(field)}') = ?`);
      // json_extract yields 1/0 for JSON booleans.
      params.push(typeof value === 'boolean' ? (value ? 1 : 0) : value);
    }
  }
  return { where: parts.join(' AND '), params };
}
