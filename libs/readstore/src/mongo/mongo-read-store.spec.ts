import { describe, expect, it } from 'vitest';
import { ReadStoreUnavailableError } from '../read-store.port.js';
import { connectMongo } from './mongo-read-store.js';

describe('connectMongo', () => {
  // The bound on how long that takes is the test's timeout, not an assertion on elapsed time.
  it('fails with ReadStoreUnavailableError naming the host and the default deadline when nothing listens', async () => {
    const error = await connectMongo('mongodb://127.0.0.1:1/warden').then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(error).toBeInstanceOf(ReadStoreUnavailableError);
    const message = (error as Error).message;
    expect(message).toContain('127.0.0.1:1');
    // The default deadline stays below the 10 s start-up budget.
    expect(message).toContain('is unreachable after 8000 ms');
    expect(message).not.toContain('\n');
  }, 12_000);

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
