import mongoose, { type Connection, type mongo } from 'mongoose';
import {
  CheckpointConflictError,
  type CheckpointMove,
  type CountOptions,
  type Filter,
  isRange,
  type FindOptions,
  type ReadStore,
  ReadStoreUnavailableError,
  type VersionedDocument,
  type Write,
} from '../read-store.port.js';

/** Read-model collection `orders` lives in the MongoDB collection `rm_orders`. */
const COLLECTION_PREFIX = 'rm_';
const CHECKPOINTS = 'projection_checkpoints';
const DEFAULT_CONNECT_TIMEOUT_MS = 8000;
/** MongoDB's duplicate-key error code (E11000). */
const DUPLICATE_KEY = 11000;

/** Same field grammar as the SQLite adapter; also keeps `$`-operators out of filters and sorts. */
const FIELD = /^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$/;

/** The log position a document was last written at, kept beside its fields and never returned. */
const POSITION = '_position';
/** What readers get: the document without the store's own fields. */
const READ_PROJECTION = { _id: 0, [POSITION]: 0 } as const;

type StoredDoc = { _id: string } & mongo.Document;
type CheckpointDoc = { _id: string; position: number };

function field(name: string): string {
  if (!FIELD.test(name)) throw new Error(`Invalid field name in read-model query: ${name}`);
  return name;
}

export interface MongoReadStoreOptions {
  /** Close the connection in close(); true only when the store (or its caller) opened it for itself. */
  readonly ownsConnection?: boolean;
}

/**
 * Read models in MongoDB, through the native driver of a mongoose Connection (no schemas):
 * one collection `rm_<name>` per read-model collection holding `{ _id: id, ...doc }`, and the
 * projections' checkpoints in `projection_checkpoints` as `{ _id: projection, position }`.
 *
 * NOT TRANSACTIONAL: unlike SQLite, a commit's writes and its checkpoint move are separate
 * operations (no multi-document transaction, so a standalone server works). The writes land
 * first and the checkpoint moves last, so a crash in between leaves the checkpoint behind and
 * the batch is redelivered on restart. That is harmless by construction: every positioned write
 * is conditional on the document's stored `_position` being earlier, and the runner's unit of
 * work skips events a document already reflects (ReadStore's contract).
 */
export class MongoReadStore implements ReadStore {
  private readonly ownsConnection: boolean;

  constructor(
    private readonly connection: Connection,
    options: MongoReadStoreOptions = {},
  ) {
    this.ownsConnection = options.ownsConnection ?? false;
  }

  async get<T extends object>(collection: string, id: string): Promise<T | undefined> {
    const docs = await this.docs(collection);
    const found = await docs.findOne({ _id: id }, { projection: READ_PROJECTION });
    return found === null ? undefined : (found as unknown as T);
  }

  async getVersioned<T extends object>(collection: string, id: string): Promise<VersionedDocument<T> | undefined> {
    const docs = await this.docs(collection);
    const found = await docs.findOne({ _id: id }, { projection: { _id: 0 } });
    if (found === null) return undefined;
    const { [POSITION]: position, ...doc } = found as mongo.Document;
    return { doc: doc as T, position: typeof position === 'number' ? position : 0 };
  }

  async find<T extends object>(collection: string, filter: Filter = {}, options: FindOptions = {}): Promise<T[]> {
    // Mongo reads limit 0 as "no limit"; the port (like SQL's LIMIT 0) means none.
    if (options.limit === 0) return [];
    const docs = await this.docs(collection);
    let cursor = docs.find(mongoFilter(filter), { projection: READ_PROJECTION }).sort(mongoSort(options.sort, options.byId));
    if (options.skip !== undefined && options.skip > 0) cursor = cursor.skip(options.skip);
    if (options.limit !== undefined && options.limit > 0) cursor = cursor.limit(options.limit);
    return (await cursor.toArray()) as unknown as T[];
  }

  async count(collection: string, filter: Filter = {}, options: CountOptions = {}): Promise<number> {
    const docs = await this.docs(collection);
    return docs.countDocuments(mongoFilter(filter), options.limit === undefined ? {} : { limit: options.limit });
  }

  /**
   * The index on `fields`, then _id: every sorted find ends with _id (find), so a find that filters
   * on the first fields and sorts on the next reads the index in order. The index an earlier
   * release made on the fields alone stays (a process of that release, during a rolling upgrade or
   * a rollback, still declares it): a later release retires it (dropIndex drops both names), or an
   * operator drops it (docs/operations.md, "Read-model indexes").
   */
  async ensureIndex(collection: string, fields: readonly string[]): Promise<void> {
    const docs = await this.docs(collection);
    await docs.createIndex(Object.fromEntries([...fields.map((f) => [field(f), 1 as const]), ['_id', 1 as const]]));
  }

  async dropIndex(collection: string, fields: readonly string[]): Promise<boolean> {
    const docs = await this.docs(collection);
    // By the names createIndex gave it, this release's (ending with _id) or an earlier one's, so no other index is touched.
    const dropped = await dropNamed(docs, indexName(fields, true));
    return (await dropNamed(docs, indexName(fields, false))) || dropped;
  }

  async commit(writes: readonly Write[], checkpoint?: CheckpointMove): Promise<void> {
    // 1. Refuse a stale writer before touching anything.
    if (checkpoint) {
      const actual = await this.checkpoint(checkpoint.projection);
      if (actual !== checkpoint.from) {
        throw new CheckpointConflictError(checkpoint.projection, checkpoint.from, actual);
      }
    }

    // 2. The writes: one unordered bulkWrite per collection, the last write of each document only
    //    (the same outcome as applying them in order). A positioned write matches only a document
    //    at an earlier position; when the document is already at or past it, the upsert collides
    //    with the existing _id, which means "already applied" (once the write was tried again:
    //    a collision can also be a concurrent insert).
    const last = new Map<string, Write>();
    for (const w of writes) last.set(`${w.collection}\u0000${w.id}`, w);
    const byCollection = new Map<string, mongo.AnyBulkWriteOperation<StoredDoc>[]>();
    for (const w of last.values()) {
      let ops = byCollection.get(w.collection);
      if (!ops) byCollection.set(w.collection, (ops = []));
      const filter = positionGuard(w.id, w.position);
      if (w.op === 'put') {
        if ('_id' in w.doc || POSITION in w.doc) {
          throw new Error(`Read-model document ${w.collection}/${w.id} has an _id or ${POSITION} field, which the store reserves`);
        }
        const replacement = w.position === undefined ? { ...w.doc, _id: w.id } : { ...w.doc, _id: w.id, [POSITION]: w.position };
        ops.push({ replaceOne: { filter, replacement, upsert: true } });
      } else {
        ops.push({ deleteOne: { filter } });
      }
    }
    for (const [collection, ops] of byCollection) {
      const docs = await this.docs(collection);
      try {
        await docs.bulkWrite(ops, { ordered: false });
      } catch (err) {
        if (!onlyDuplicateKeys(err)) throw err;
        // A duplicate key also comes from two writers inserting the same new document at once
        // (another worker's projection): the server does not retry an upsert whose filter is more
        // than the _id, and the loser's write, possibly the later position, would be lost. Once
        // more, each now finds the document: replaced if it is older, a duplicate key again if
        // it is at or past the write's position, which then really means "already applied".
        const again = failedIndexes(err).map((i) => ops[i]!);
        try {
          await docs.bulkWrite(again, { ordered: false });
        } catch (retryErr) {
          if (!onlyDuplicateKeys(retryErr)) throw retryErr;
        }
      }
    }

    // 3. Move the checkpoint last, compare-and-set on the position the writer saw. A first move
    //    (from 0) may create the document; a racing creator makes the upsert hit the unique _id.
    if (checkpoint) {
      const { projection, from, to } = checkpoint;
      let moved: boolean;
      try {
        const result = await (await this.checkpoints()).updateOne({ _id: projection, position: from }, { $set: { position: to } }, { upsert: from === 0 });
        moved = result.matchedCount + result.upsertedCount > 0;
      } catch (err) {
        if (!isDuplicateKey(err)) throw err;
        moved = false;
      }
      if (!moved) throw new CheckpointConflictError(projection, from, await this.checkpoint(projection));
    }
  }

  async checkpoint(projection: string): Promise<number> {
    const found = await (await this.checkpoints()).findOne({ _id: projection });
    return found?.position ?? 0;
  }

  async reset(collections: readonly string[], projections: readonly string[]): Promise<void> {
    for (const c of collections) await (await this.docs(c)).deleteMany({});
    if (projections.length > 0) {
      await (
        await this.checkpoints()
      ).bulkWrite(
        projections.map((p) => ({
          updateOne: { filter: { _id: p }, update: { $set: { position: 0 } }, upsert: true },
        })),
        { ordered: false },
      );
    }
  }

  /** The server's storage engine manages its own files: nothing a client can ask for (operations.md, "Personal data"). */
  async purgeEarlierVersions(): Promise<void> {}

  async ping(): Promise<void> {
    const db = await this.db();
    try {
      await db.command({ ping: 1 });
    } catch (err) {
      throw new ReadStoreUnavailableError(`MongoDB read store did not answer ping: ${reason(err)}`, { cause: err });
    }
  }

  async close(): Promise<void> {
    if (this.ownsConnection) await this.connection.close();
  }

  /** The driver's Db; waits for a lazily opened connection (`lazyConnection` in MongooseModule). */
  private async db(): Promise<mongo.Db> {
    if (this.connection.db) return this.connection.db;
    try {
      await this.connection.asPromise();
    } catch (err) {
      throw new ReadStoreUnavailableError(`MongoDB read store is not connected: ${reason(err)}`, { cause: err });
    }
    if (!this.connection.db) throw new ReadStoreUnavailableError('MongoDB read store: the connection was never opened');
    return this.connection.db;
  }

  private async docs(collection: string): Promise<mongo.Collection<StoredDoc>> {
    return (await this.db()).collection<StoredDoc>(COLLECTION_PREFIX + collection);
  }

  private async checkpoints(): Promise<mongo.Collection<CheckpointDoc>> {
    return (await this.db()).collection<CheckpointDoc>(CHECKPOINTS);
  }
}

/**
 * Equality per field; `{ f: null }` matches null and missing alike, as on SQLite. A Range becomes
 * `$lt`/`$gte`, which MongoDB applies to values of the bound's own type only (type bracketing), as
 * the SQLite adapter does for strings and numbers (the port's Range is for those only).
 */
function mongoFilter(filter: Filter): mongo.Filter<StoredDoc> {
  const query: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(filter)) {
    if (!isRange(value)) query[field(name)] = value;
    else if (value.lt !== undefined || value.gte !== undefined) {
      query[field(name)] = { ...(value.lt !== undefined ? { $lt: value.lt } : {}), ...(value.gte !== undefined ? { $gte: value.gte } : {}) };
    }
  }
  return query as mongo.Filter<StoredDoc>;
}

/** Matches the document only while it is at an earlier position than the write (or has none). */
function positionGuard(id: string, position: number | undefined): mongo.Filter<StoredDoc> {
  if (position === undefined) return { _id: id };
  return { _id: id, $or: [{ [POSITION]: { $lt: position } }, { [POSITION]: { $exists: false } }] } as mongo.Filter<StoredDoc>;
}

/** A bulk write whose only failures are guarded upserts that found the document already written. */
function onlyDuplicateKeys(err: unknown): boolean {
  if (!(err instanceof mongoose.mongo.MongoBulkWriteError)) return false;
  const list = Array.isArray(err.writeErrors) ? err.writeErrors : [err.writeErrors];
  // A write-concern failure means the writes that did apply may not be durable: never swallowed.
  const writeConcernFailed = err.err !== undefined || err.result?.getWriteConcernError() !== undefined;
  return list.length > 0 && list.every((e) => isDuplicateKey(e)) && !writeConcernFailed;
}

/** The indexes, in the bulk write's operations, of the writes that failed. */
function failedIndexes(err: unknown): number[] {
  const bulk = err as InstanceType<typeof mongoose.mongo.MongoBulkWriteError>;
  const list = Array.isArray(bulk.writeErrors) ? bulk.writeErrors : [bulk.writeErrors];
  return list.map((e) => e.index);
}

function isDuplicateKey(err: unknown): boolean {
  return typeof err === 'object' && err !== null && (err as { code?: unknown }).code === DUPLICATE_KEY;
}

/**
 * Opens a dedicated connection and waits for it; fails within `timeoutMs` (default 8 s, so
 * within 10 s) with a ReadStoreUnavailableError whose one-line message names the host(s) but
 * never the credentials of the URL.
 */
export async function connectMongo(url: string, options: { timeoutMs?: number } = {}): Promise<Connection> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
  const where = `MongoDB at ${describeHosts(url)}`;
  let connection: Connection | undefined;
  let timer: NodeJS.Timeout | undefined;
  try {
    connection = mongoose.createConnection(url, { serverSelectionTimeoutMS: timeoutMs });
    // Server selection bounds the wait; the timer is a backstop (e.g. a slow SRV lookup).
    const backstop = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs + 500);
    });
    return await Promise.race([connection.asPromise(), backstop]);
  } catch (err) {
    // Release the half-open client so its monitors do not keep the process alive.
    await connection?.destroy(true).catch(() => undefined);
    const problem = isServerSelection(err) ? `is unreachable after ${timeoutMs} ms (${reason(err, url)})` : `could not be connected to: ${reason(err, url)}`;
    throw new ReadStoreUnavailableError(`${where} ${problem}`, { cause: err });
  } finally {
    if (timer) clearTimeout(timer);
  }
}

function isServerSelection(err: unknown): boolean {
  const name = (err as { name?: unknown } | null)?.name;
  return (
    name === 'MongooseServerSelectionError' || name === 'MongoServerSelectionError' || (err instanceof Error && err.message.startsWith('no answer within'))
  );
}

/** `user:pass@h1:27017,h2/db?x` → `h1:27017,h2`; the credentials never leave this function. */
function describeHosts(url: string): string {
  const scheme = /^[A-Za-z][A-Za-z0-9+.-]*:\/\//.exec(url);
  if (!scheme) return '(unparseable URL)';
  let rest = url.slice(scheme[0].length);
  const query = rest.indexOf('?');
  if (query >= 0) rest = rest.slice(0, query);
  const at = rest.lastIndexOf('@');
  if (at >= 0) rest = rest.slice(at + 1);
  const slash = rest.indexOf('/');
  const hosts = slash >= 0 ? rest.slice(0, slash) : rest;
  return hosts === '' ? '(no host)' : hosts;
}

/** The first line of an error, with anything that looks like credentials removed. */
function reason(err: unknown, url?: string): string {
  let text = err instanceof Error ? err.message : String(err);
  if (url) text = text.split(url).join(describeHosts(url));
  text = text
    .replace(/\/\/[^\s/@]*@/g, '//')
    .split('\n')[0]!
    .trim();
  return text.length > 200 ? `${text.slice(0, 200)}…` : text || 'unknown error';
}

/** The driver's default name of the index on `fields` (`<field>_1_<field>_1`), with the _id ensureIndex ends it with or without. */
const indexName = (fields: readonly string[], withId: boolean): string => [...fields.map((f) => `${field(f)}_1`), ...(withId ? ['_id_1'] : [])].join('_');

/** Drops the index of that name; false when there is none. */
async function dropNamed(docs: mongo.Collection<StoredDoc>, name: string): Promise<boolean> {
  try {
    await docs.dropIndex(name);
    return true;
  } catch (error) {
    // IndexNotFound (27): not there, or dropped a moment ago by another process; NamespaceNotFound (26): a collection never written.
    const code = (error as { code?: unknown }).code;
    if (code === 27 || code === 26) return false;
    throw error;
  }
}

/**
 * A find's sort: its keys, then by id in the direction of the last key (as the embedded store's
 * rowid), so that an index on the sorted fields, which ends with _id (ensureIndex), is read in its
 * order or its reverse and stopped at the limit. An _id ascending after a descending key made every
 * such find sort all its matches in memory (and fail past MongoDB's 100 MB for a sort).
 */
export function mongoSort(keys: FindOptions['sort'] = [], byId = false): Record<string, 1 | -1> {
  const sort: Record<string, 1 | -1> = {};
  for (const s of keys) sort[field(s.field)] = s.direction === 'desc' ? -1 : 1;
  // Ties by id ascending when asked (byId: the same order on every store), whatever the keys' direction.
  if (!('_id' in sort)) sort['_id'] = !byId && keys.at(-1)?.direction === 'desc' ? -1 : 1;
  return sort;
}
