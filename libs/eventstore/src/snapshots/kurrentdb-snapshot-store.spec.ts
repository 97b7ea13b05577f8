import type { KurrentDBClient } from '@kurrent/kurrentdb-client';
import { describe, expect, it } from 'vitest';
import { KURRENTDB_DEFAULT_MAX_APPEND_BYTES, KurrentDbSnapshotStore } from './kurrentdb-snapshot-store.js';

describe('KurrentDbSnapshotStore: how large a snapshot it takes', () => {
  // Nothing is sent to a server here: the size is the constructor's.
  const client = {} as KurrentDBClient;

  it("takes what the server's MaxAppendSize holds, less room for the event's envelope: 1 MiB by default, or as configured", () => {
    expect(new KurrentDbSnapshotStore(client).maxBytes).toBe(KURRENTDB_DEFAULT_MAX_APPEND_BYTES - 16 * 1024);
    expect(new KurrentDbSnapshotStore(client, 4 * 1024 * 1024).maxBytes).toBe(4 * 1024 * 1024 - 16 * 1024);
  });
});
