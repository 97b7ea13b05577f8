import mongoose, { type ConnectOptions } from 'mongoose';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ReadStoreUnavailableError } from '../read-store.port.js';
import { connectMongo, mongoSort } from './mongo-read-store.js';

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
