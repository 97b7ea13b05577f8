import type { Connection, mongo } from 'mongoose';
import { checkedKey, checkedTokens, type RateLimit, type RateLimitStore, secondsUntilToken } from '#warden/platform';

const RATE_LIMIT_COLLECTION = 'rate_limits';
/** MongoDB's duplicate-key error code (E11000). */
const DUPLICATE_KEY = 11000;

interface BucketDoc {
  _id: string;
  tokens: number;
  at: Date;
  /** When an untouched bucket is full again, so the document may go (TTL index). */
  expiresAt: Date;
  /** Whether the last take found a token. */
  taken: boolean;
}

/**
 * One token bucket per key in MongoDB, shared by every api instance: a document
 * `{ _id: key, tokens, at, expiresAt, taken }` refilled and taken from in ONE atomic
 * findOneAndUpdate (an update pipeline), so concurrent requests on any instance never take the
 * same token twice. Time is the server's `$$NOW`, so the instances' clocks do not matter.
 */
export class MongoRateLimitStore implements RateLimitStore {
  readonly sharedAcrossInstances = true;
  private readonly refillMs: number;
  /** The update pipeline of each cost asked so far (a handful: costs are whole tokens up to the burst). */
  private readonly updates = new Map<number, mongo.Document[]>();

  private constructor(
    private readonly buckets: mongo.Collection<BucketDoc>,
    private readonly limit: RateLimit,
  ) {
    this.refillMs = Math.ceil((limit.burst / limit.ratePerSecond) * 1000);
  }

  /** Creates the TTL index (idempotent) and the store; fails when MongoDB does not answer. */
  static async open(connection: Connection, limit: RateLimit, collection = RATE_LIMIT_COLLECTION): Promise<MongoRateLimitStore> {
    if (!(limit.ratePerSecond > 0) || !(limit.burst >= 1)) throw new RangeError('A rate limit needs a positive rate and a burst of at least 1');
    await connection.asPromise();
    if (!connection.db) throw new Error('MongoDB rate-limit store: the connection was never opened');
    const buckets = connection.db.collection<BucketDoc>(collection);
    // Per-document expiry: a change of the configured rate needs no index change.
    await buckets.createIndex({ expiresAt: 1 }, { expireAfterSeconds: 0 });
    return new MongoRateLimitStore(buckets, limit);
  }

  async take(key: string, tokens = 1): Promise<number> {
    const id = checkedKey(key);
    const cost = checkedTokens(tokens, this.limit.burst);
    let bucket: BucketDoc | null;
    try {
      bucket = await this.takeFrom(id, cost);
    } catch (err) {
      // Two first requests for a key may both try to insert its document; the loser retries
      // and updates the winner's (servers from 4.2 on usually retry such upserts themselves).
      if ((err as { code?: unknown } | null)?.code !== DUPLICATE_KEY) throw err;
      bucket = await this.takeFrom(id, cost);
    }
    if (bucket === null) throw new Error('MongoDB rate-limit store: the bucket update returned no document');
    return bucket.taken ? 0 : secondsUntilToken(bucket.tokens, this.limit.ratePerSecond, cost);
  }

  private takeFrom(id: string, cost: number): Promise<BucketDoc | null> {
    let update = this.updates.get(cost);
    if (!update) this.updates.set(cost, (update = takeTokens(this.limit, this.refillMs, cost)));
    return this.buckets.findOneAndUpdate({ _id: id }, update, {
      upsert: true,
      returnDocument: 'after',
      projection: { tokens: 1, taken: 1 },
    });
  }
}

/**
 * The update pipeline: stage 1 refills the bucket for the time since its last use (a missing
 * document is a full bucket), stage 2 takes `cost` tokens if there are that many. Both stages of
 * one update see the same `$$NOW`; expressions in one `$set` all read the stage's input.
 */
function takeTokens({ ratePerSecond, burst }: RateLimit, refillMs: number, cost: number): mongo.Document[] {
  const elapsedMs = { $max: [0, { $subtract: ['$$NOW', { $ifNull: ['$at', '$$NOW'] }] }] };
  const refilled = { $add: [{ $ifNull: ['$tokens', burst] }, { $multiply: [{ $divide: [elapsedMs, 1000] }, ratePerSecond] }] };
  const hasToken = { $gte: ['$tokens', cost] };
  return [
    { $set: { tokens: { $min: [burst, refilled] }, at: '$$NOW' } },
    {
      $set: {
        taken: hasToken,
        tokens: { $cond: [hasToken, { $subtract: ['$tokens', cost] }, '$tokens'] },
        expiresAt: { $add: ['$$NOW', refillMs] },
      },
    },
  ];
}

/**
 * The rate-limit stores shared by the API instances of a process with a MongoDB connection, for
 * createHttpApp (`sharedRateLimits`) when WARDEN_RATE_LIMIT_STORE is mongodb; none without one.
 */
export function sharedRateLimitStores(mongo: Connection | undefined): ((limit: RateLimit) => Promise<RateLimitStore>) | undefined {
  return mongo === undefined ? undefined : (limit) => MongoRateLimitStore.open(mongo, limit);
}
