import type { Connection, mongo } from 'mongoose';
import {
  type BeginOutcome,
  type BeginRequest,
  checkedBegin,
  checkedRef,
  type IdempotencyKeyRef,
  type IdempotencyStore,
  type StoredResponse,
} from '#warden/platform';

export const IDEMPOTENCY_COLLECTION = 'idempotency_keys';
/** MongoDB's duplicate-key error code (E11000). */
const DUPLICATE_KEY = 11000;

interface RecordDoc {
  /** JSON of [scope, key]: one string, unambiguous whatever the parts hold. */
  _id: string;
  state: 'pending' | 'done';
  fingerprint: string;
  holder: string | null;
  leaseUntil: Date | null;
  status: number | null;
  body: string | null;
  /** The TTL index deletes the record after this. */
  expiresAt: Date;
}

const idOf = (ref: IdempotencyKeyRef) => JSON.stringify([ref.scope, ref.key]);

/**
 * Idempotency records in MongoDB, shared by every api instance: a reservation is ONE atomic
 * findOneAndUpdate (an update pipeline, upserting), which takes the key only when it is free, so
 * two instances never both run a key's first request. Times are the server's `$$NOW`; a TTL index
 * deletes expired records.
 */
export class MongoIdempotencyStore implements IdempotencyStore {
  private constructor(private readonly records: mongo.Collection<RecordDoc>) {}

  /** Creates the TTL index (idempotent) and the store; fails when MongoDB does not answer. */
  static async open(connection: Connection, collection = IDEMPOTENCY_COLLECTION): Promise<MongoIdempotencyStore> {
    await connection.asPromise();
    if (!connection.db) throw new Error('MongoDB idempotency store: the connection was never opened');
    const records = connection.db.collection<RecordDoc>(collection);
    await records.createIndex({ expiresAt: 1 }, { expireAfterSeconds: 0 });
    return new MongoIdempotencyStore(records);
  }

  async begin(request: BeginRequest): Promise<BeginOutcome> {
    checkedBegin(request);
    let doc: RecordDoc | null;
    try {
      doc = await this.reserve(request);
    } catch (err) {
      // Two first requests with a key may both try to insert it; the loser reads the winner's.
      if ((err as { code?: unknown } | null)?.code !== DUPLICATE_KEY) throw err;
      doc = await this.reserve(request);
    }
    if (doc === null) throw new Error('MongoDB idempotency store: the reservation returned no document');
    if (doc.state === 'pending' && doc.holder === request.holder) return { outcome: 'reserved' };
    if (doc.fingerprint !== request.fingerprint) return { outcome: 'mismatch' };
    if (doc.state === 'pending') return { outcome: 'in-progress' };
    return { outcome: 'replay', response: { status: doc.status!, body: doc.body } };
  }

  async complete(ref: IdempotencyKeyRef, holder: string, response: StoredResponse): Promise<boolean> {
    checkedRef(ref);
    const result = await this.records.updateOne(
      { _id: idOf(ref), state: 'pending', holder },
      { $set: { state: 'done', status: response.status, body: response.body, holder: null, leaseUntil: null } },
    );
    return result.modifiedCount === 1;
  }

  async release(ref: IdempotencyKeyRef, holder: string): Promise<void> {
    checkedRef(ref);
    await this.records.deleteOne({ _id: idOf(ref), state: 'pending', holder });
  }

  /** The TTL monitor runs about once a minute; this deletes what it has not reached yet. */
  async purgeExpired(): Promise<number> {
    return (await this.records.deleteMany({ expiresAt: { $lte: new Date() } })).deletedCount;
  }

  /** The connection is shared with the read models, which close it. */
  async close(): Promise<void> {}

  private reserve(r: BeginRequest): Promise<RecordDoc | null> {
    return this.records.findOneAndUpdate({ _id: idOf(checkedRef(r)) }, reservation(r), { upsert: true, returnDocument: 'after' });
  }
}

/**
 * Stage 1 decides whether the key is free: no record (or one without a state), an expired one,
 * or a reservation whose lease ran out. Stage 2 takes it for this request only then, and leaves
 * the record as it was otherwise. Values go in as `$literal`, never as expressions.
 */
function reservation(r: BeginRequest): mongo.Document[] {
  const free = '$_free';
  const take = (value: unknown, field: string) => ({ $cond: [free, value, `$${field}`] });
  return [
    {
      $set: {
        _free: {
          $or: [
            { $not: [{ $in: [{ $ifNull: ['$state', 'none'] }, ['pending', 'done']] }] },
            { $lte: ['$expiresAt', '$$NOW'] },
            { $and: [{ $eq: ['$state', 'pending'] }, { $lte: ['$leaseUntil', '$$NOW'] }] },
          ],
        },
      },
    },
    {
      $set: {
        state: take({ $literal: 'pending' }, 'state'),
        fingerprint: take({ $literal: r.fingerprint }, 'fingerprint'),
        holder: take({ $literal: r.holder }, 'holder'),
        leaseUntil: take({ $add: ['$$NOW', r.leaseMs] }, 'leaseUntil'),
        status: take(null, 'status'),
        body: take(null, 'body'),
        expiresAt: take({ $add: ['$$NOW', r.retentionMs] }, 'expiresAt'),
      },
    },
    { $unset: '_free' },
  ];
}
