import { randomBytes, randomUUIDv7 } from 'node:crypto';
import { type Connection, mongo } from 'mongoose';
import type { SubjectKey, SubjectKeyStore } from './subject-key-store.port.js';

const COLLECTION = 'subject_keys';
/** One document `{ _id: 'count', count }`: how many erasures have forgotten a key (erasures()). */
const ERASURES = 'subject_key_erasures';
/** MongoDB's duplicate-key error code (E11000). */
const DUPLICATE_KEY = 11000;
/**
 * Key writes wait for the journal (and a majority of a replica set): by default a standalone
 * server acknowledges a write held in memory, flushed to its journal within 100 ms, while the
 * event sealed with a new key is already on disk in the log; a crash between the two would leave
 * that subject's data sealed under a key that no longer exists. A forgetting likewise is on disk
 * before the erasure is recorded as complete.
 */
export const KEY_WRITE_CONCERN: mongo.WriteConcernSettings = { w: 'majority', journal: true };

interface KeyDoc {
  _id: string;
  orgId: string;
  subjectId: string;
  key: mongo.Binary;
}

export interface MongoSubjectKeyStoreOptions {
  /** Close the connection in close(); leave false when the connection is shared (MongooseModule). */
  readonly ownsConnection?: boolean;
}

/**
 * Subject keys in MongoDB, collection `subject_keys` `{ _id: keyId, orgId, subjectId, key }`,
 * with a unique index on (orgId, subjectId) so that concurrent first uses agree on one key.
 * Forgetting deletes the documents; the key then exists nowhere but in backups, whose
 * retention bounds how long erased data stays recoverable.
 */
export class MongoSubjectKeyStore implements SubjectKeyStore {
  private readonly ownsConnection: boolean;
  private indexReady: Promise<void> | undefined;

  constructor(
    private readonly connection: Connection,
    options: MongoSubjectKeyStoreOptions = {},
  ) {
    this.ownsConnection = options.ownsConnection ?? false;
  }

  async keyFor(orgId: string, subjectId: string): Promise<SubjectKey> {
    const keys = await this.keys();
    // The unique index must exist before the first insert, or a race could create two keys.
    await this.ensureIndex(keys);
    // A few rounds: the winner of a race may be forgotten before we read it back.
    for (let attempt = 0; attempt < 3; attempt++) {
      const existing = await keys.findOne({ orgId, subjectId });
      if (existing) return { keyId: existing._id, key: toBuffer(existing.key) };
      const created: KeyDoc = { _id: randomUUIDv7(), orgId, subjectId, key: new mongo.Binary(randomBytes(32)) };
      try {
        await keys.insertOne(created, { writeConcern: KEY_WRITE_CONCERN });
        return { keyId: created._id, key: toBuffer(created.key) };
      } catch (err) {
        if (!isDuplicateKey(err)) throw err;
        // Another process created the subject's key first: read and use the winner's.
      }
    }
    throw new Error(`Subject key for ${orgId}/${subjectId}: could not settle a key after concurrent updates`);
  }

  async findMany(keyIds: readonly string[]): Promise<Map<string, Buffer>> {
    if (keyIds.length === 0) return new Map();
    const found = await (await this.keys()).find({ _id: { $in: [...keyIds] } }, { projection: { key: 1 } }).toArray();
    return new Map(found.map((doc) => [doc._id, toBuffer(doc.key)] as const));
  }

  async forget(orgId: string, subjectId: string): Promise<number> {
    const result = await (await this.keys()).deleteMany({ orgId, subjectId }, { writeConcern: KEY_WRITE_CONCERN });
    // Counted after the deletion: a process that reads the new count also finds the key gone.
    if (result.deletedCount > 0) {
      await (await this.erasureCount()).updateOne({ _id: 'count' }, { $inc: { count: 1 } }, { upsert: true, writeConcern: KEY_WRITE_CONCERN });
    }
    return result.deletedCount;
  }

  async erasures(): Promise<number> {
    return (await (await this.erasureCount()).findOne({ _id: 'count' }))?.count ?? 0;
  }

  async close(): Promise<void> {
    if (this.ownsConnection) await this.connection.close();
  }

  private async keys(): Promise<mongo.Collection<KeyDoc>> {
    return (await this.db()).collection<KeyDoc>(COLLECTION);
  }

  private async erasureCount(): Promise<mongo.Collection<{ _id: string; count: number }>> {
    return (await this.db()).collection<{ _id: string; count: number }>(ERASURES);
  }

  /** Waits for a lazily opened connection; immediate when it is already open. */
  private async db(): Promise<mongo.Db> {
    const db = this.connection.db ?? (await this.connection.asPromise()).db;
    if (!db) throw new Error('MongoDB subject key store: the connection was never opened');
    return db;
  }

  /** Creates the unique index once per store; a failure is retried on the next call. */
  private ensureIndex(keys: mongo.Collection<KeyDoc>): Promise<void> {
    this.indexReady ??= keys
      .createIndex({ orgId: 1, subjectId: 1 }, { unique: true })
      .then(() => undefined)
      .catch((err: unknown) => {
        this.indexReady = undefined;
        throw err;
      });
    return this.indexReady;
  }
}

/** The driver returns BSON Binary (or a Buffer under `promoteBuffers`); callers get a Buffer copy. */
function toBuffer(value: mongo.Binary | Uint8Array): Buffer {
  if (value instanceof Uint8Array) return Buffer.from(value);
  return Buffer.from(value.read(0, value.length()));
}

function isDuplicateKey(err: unknown): boolean {
  return typeof err === 'object' && err !== null && (err as { code?: unknown }).code === DUPLICATE_KEY;
}
