import mongoose, { type Connection, type ConnectOptions } from 'mongoose';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ReadStoreUnavailableError } from '../read-store.port.js';
import { connectMongo, MongoReadStore, mongoSort } from './mongo-read-store.js';

describe('connectMongo', () => {
  afterEach(() => vi.restoreAllMocks());

  // The driver's own server selection is what gives up: the test asks for the default deadline
  // and checks the driver was given 8 s, but lets it give up after 200 ms of real time (the
  // message still names the deadline the caller had, 8000 ms), rather than waiting 8 s.
  it('fails with ReadStoreUnavailableError naming the host and the default deadline when nothing listens', async () => {
    const asked: unknown[] = [];
    const create = mongoose.createConnection.bind(mongoose);
    vi.spyOn(mongoose, 'createConnection').mockImplementation(((uri: string, options: ConnectOptions) => {
      asked.push(options.serverSelectionTimeoutMS);
      return create(uri, { ...options, serverSelectionTimeoutMS: 200 });
    }) as typeof mongoose.createConnection);
    const error = await connectMongo('mongodb://127.0.0.1:1/warden').then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(asked).toEqual([8000]);
    expect(error).toBeInstanceOf(ReadStoreUnavailableError);
    const message = (error as Error).message;
    expect(message).toContain('127.0.0.1:1');
    // The default deadline stays below the 10 s start-up budget.
    expect(message).toContain('is unreachable after 8000 ms');
    expect(message).not.toContain('\n');
  });

  it('keeps credentials out of the message', async () => {
    const error = await connectMongo('mongodb://warden:s3cret@127.0.0.1:1/warden', { timeoutMs: 500 }).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(error).toBeInstanceOf(ReadStoreUnavailableError);
    const message = (error as Error).message;
    expect(message).toContain('127.0.0.1:1');
    expect(message).not.toContain('s3cret');
    expect(message).not.toContain('warden:');
  }, 5_000);
});

describe('mongoSort', () => {
  it("ends every sort with _id in its last key's direction: an index on the fields, ending with _id, is read in order or in reverse", () => {
    expect(mongoSort([{ field: 'requestedAt', direction: 'desc' }])).toEqual({ requestedAt: -1, _id: -1 });
    expect(
      mongoSort([
        { field: 'decidedAt', direction: 'asc' },
        { field: 'puid', direction: 'asc' },
      ]),
    ).toEqual({ decidedAt: 1, puid: 1, _id: 1 });
    expect(mongoSort()).toEqual({ _id: 1 });
    // byId: ties by id ascending on every store, whatever the direction (the read-store contract).
    expect(mongoSort([{ field: 'rank', direction: 'desc' }], true)).toEqual({ rank: -1, _id: 1 });
  });
});

/**
 * A duplicate key on a guarded upsert, as the server reports it when another worker inserted the
 * same new document first. No MongoDB server runs here (the contract suite covers a real one when
 * WARDEN_MONGO_URL is set): the driver's collection is the seam, and its error is built the way
 * the driver builds it (a MongoBulkWriteError whose write errors carry the operation's index).
 */
function duplicateKeyAt(index: number): Error {
  const error = Object.create(mongoose.mongo.MongoBulkWriteError.prototype) as Record<string, unknown>;
  error['writeErrors'] = [{ code: 11000, index, errmsg: 'E11000 duplicate key error' }];
  error['result'] = { getWriteConcernError: () => undefined };
  return error as unknown as Error;
}

describe('MongoReadStore.commit, two workers inserting one new document at once', () => {
  it('writes a put that lost the race for the insert once more, where it replaces the older document', async () => {
    const batches: Array<Array<Record<string, unknown>>> = [];
    const collection = {
      bulkWrite: async (ops: Array<Record<string, unknown>>) => {
        batches.push(ops);
        // The first round: the second write collided with another worker's insert of the same _id.
        if (batches.length === 1) throw duplicateKeyAt(1);
        return {};
      },
    };
    const connection = { db: { collection: () => collection } } as unknown as Connection;
    const store = new MongoReadStore(connection);
    await store.commit([
      { op: 'put', collection: 'scores', id: 'a', doc: { n: 1 }, position: 240 },
      { op: 'put', collection: 'scores', id: 'b', doc: { n: 2 }, position: 250 },
    ]);
    expect(batches).toHaveLength(2);
    // Only the write that collided, once more: now a replacement of the document the other worker inserted, if older.
    expect(batches[1]).toEqual([batches[0]![1]]);
  });

  it('takes a second collision as "already applied" (the document is at or past the write\'s position)', async () => {
    let rounds = 0;
    const collection = {
      bulkWrite: async () => {
        rounds++;
        throw duplicateKeyAt(0);
      },
    };
    const store = new MongoReadStore({ db: { collection: () => collection } } as unknown as Connection);
    await store.commit([{ op: 'put', collection: 'scores', id: 'a', doc: { n: 1 }, position: 240 }]);
    expect(rounds).toBe(2);
  });
});
