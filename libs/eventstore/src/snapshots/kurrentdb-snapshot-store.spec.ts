import type { KurrentDBClient } from '@kurrent/kurrentdb-client';
import { describe, expect, it } from 'vitest';
import { KURRENTDB_DEFAULT_MAX_APPEND_BYTES, KurrentDbSnapshotStore } from './kurrentdb-snapshot-store.js';

/** The client at its narrowest seam: appends counted by stream, the first metadata setting failing. */
function client() {
  const revisions = new Map<string, bigint>();
  const metadata: string[] = [];
  let failOnce = true;
  const stub = {
    appendToStream: async (stream: string) => {
      const next = (revisions.get(stream) ?? -1n) + 1n;
      revisions.set(stream, next);
      return { success: true, nextExpectedRevision: next };
    },
    setStreamMetadata: async (stream: string) => {
      if (failOnce) {
        failOnce = false;
        throw new Error('connection reset');
      }
      metadata.push(stream);
    },
  } as unknown as KurrentDBClient;
  return { stub, metadata };
}

describe('KurrentDB snapshot store', () => {
  it("sets a snapshot stream's $maxCount again when the first setting failed, once per process after that", async () => {
    const { stub, metadata } = client();
    const store = new KurrentDbSnapshotStore(stub);
    const snapshot = { name: 'user-strikes', version: 1, revision: 10, state: { n: 1 } };
    await expect(store.write('user_strikes-acme:u1', snapshot)).rejects.toThrow('connection reset');
    await store.write('user_strikes-acme:u1', { ...snapshot, revision: 20 });
    await store.write('user_strikes-acme:u1', { ...snapshot, revision: 30 });
    expect(metadata).toEqual(['warden_snapshot-user-strikes:user_strikes-acme:u1']);
  });

  it("takes snapshots as large as the server's MaxAppendSize holds, less room for the event's envelope: 1 MiB by default, or as configured", () => {
    const { stub } = client();
    expect(new KurrentDbSnapshotStore(stub).maxBytes).toBe(KURRENTDB_DEFAULT_MAX_APPEND_BYTES - 16 * 1024);
    expect(new KurrentDbSnapshotStore(stub, 4 * 1024 * 1024).maxBytes).toBe(4 * 1024 * 1024 - 16 * 1024);
  });
});
