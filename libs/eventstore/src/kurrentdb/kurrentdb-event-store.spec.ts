import { describe, expect, it } from 'vitest';
import { EventStoreUnavailableError } from '../event-store.port.js';
import { connectKurrentDb } from './kurrentdb-event-store.js';

describe('connectKurrentDb', () => {
  // Port 1 on loopback: nothing listens, so the connection is refused. The bound on how long
  // that takes is the test's timeout, not an assertion on elapsed time.
  it('fails start-up with EventStoreUnavailableError naming the host', async () => {
    const error = await connectKurrentDb('kurrentdb://127.0.0.1:1?tls=false').then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(EventStoreUnavailableError);
    expect((error as Error).message).toContain('127.0.0.1:1');
    expect((error as Error).message).toMatch(/^KurrentDB at .* is unreachable: .+/);
  }, 15_000);

  it('keeps credentials out of the message', async () => {
    const error = await connectKurrentDb('kurrentdb://admin:s3cret@127.0.0.1:1?tls=false').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(EventStoreUnavailableError);
    expect((error as Error).message).not.toContain('s3cret');
    expect((error as Error).message).toContain('127.0.0.1:1');
  }, 15_000);

  it('gives up after timeoutMs when the server does not answer, saying so', async () => {
    const error = await connectKurrentDb('kurrentdb://127.0.0.1:1?tls=false', { timeoutMs: 1 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(EventStoreUnavailableError);
    expect((error as Error).message).toContain('no answer within 1 ms');
  });
});
