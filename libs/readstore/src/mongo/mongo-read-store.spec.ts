import { describe, expect, it } from 'vitest';
import { ReadStoreUnavailableError } from '../read-store.port.js';
import { connectMongo } from './mongo-read-store.js';

describe('connectMongo', () => {
  it('fails within 10 s with ReadStoreUnavailableError naming the host when nothing listens', async () => {
    const started = Date.now();
    const error = await connectMongo('mongodb://127.0.0.1:1/warden').then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(error).toBeInstanceOf(ReadStoreUnavailableError);
    const message = (error as Error).message;
    expect(message).toContain('127.0.0.1:1');
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
