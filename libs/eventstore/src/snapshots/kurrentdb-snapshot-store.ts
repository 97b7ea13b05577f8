import { BACKWARDS, END, jsonEvent, type KurrentDBClient, StreamNotFoundError } from '@kurrent/kurrentdb-client';
import type { Json } from '#warden/kernel';
import type { SnapshotStore, StoredSnapshot } from './snapshot-store.port.js';

/** KurrentDB's default MaxAppendSize: what one append may hold unless the server is told otherwise. */
export const KURRENTDB_DEFAULT_MAX_APPEND_BYTES = 1024 * 1024;

/** The category of snapshot streams: `warden_snapshot-<name>:<stream>` (the stream as percent-encoded ids already). */
export const SNAPSHOT_CATEGORY = 'warden_snapshot';
/** The type of every snapshot event: never in a projection's types, and filtered out of every read of `$all`. */
export const SNAPSHOT_EVENT_TYPE = 'WardenAggregateSnapshot';

const snapshotStream = (streamName: string, name: string) => `${SNAPSHOT_CATEGORY}-${encodeURIComponent(name)}:${streamName}`;

/** Whether a stream holds snapshots rather than domain events: the application never reads those from `$all`. */
export const isSnapshotStream = (streamName: string) => streamName.startsWith(`${SNAPSHOT_CATEGORY}-`);

/**
 * Snapshots on KurrentDB as its documentation suggests: a stream of their own beside the
 * aggregate's, read backwards for the newest, whose `$maxCount` of 1 lets the server scavenge the
 * older ones. Appends are unconditional: a snapshot behind the newest one only costs a longer read.
 */
export class KurrentDbSnapshotStore implements SnapshotStore {
  /** The server's MaxAppendSize (WARDEN_KURRENTDB_MAX_APPEND_BYTES), less room for the event's envelope and metadata. */
  readonly maxBytes: number;
  /** Snapshot streams whose `$maxCount` this process has set (bounded: forgotten in bulk past 100,000). */
  private readonly limited = new Set<string>();

  constructor(
    private readonly client: KurrentDBClient,
    maxAppendBytes = KURRENTDB_DEFAULT_MAX_APPEND_BYTES,
  ) {
    this.maxBytes = maxAppendBytes - 16 * 1024;
  }

  async read(streamName: string, name: string): Promise<StoredSnapshot | undefined> {
    try {
      for await (const resolved of this.client.readStream(snapshotStream(streamName, name), { fromRevision: END, direction: BACKWARDS, maxCount: 1 })) {
        const data = resolved.event?.data as { version?: unknown; revision?: unknown; state?: Json } | undefined;
        if (!data || typeof data.version !== 'number' || typeof data.revision !== 'number' || data.state === undefined) return undefined;
        return { name, version: data.version, revision: data.revision, state: data.state };
      }
    } catch (error) {
      if (!(error instanceof StreamNotFoundError)) throw error;
    }
    return undefined;
  }

  async write(streamName: string, snapshot: StoredSnapshot): Promise<void> {
    const stream = snapshotStream(streamName, snapshot.name);
    const result = await this.client.appendToStream(
      stream,
      jsonEvent({ type: SNAPSHOT_EVENT_TYPE, data: { version: snapshot.version, revision: snapshot.revision, state: snapshot.state } }),
    );
    // The first snapshot of a stream sets its metadata, and so does each process's first snapshot
    // of it: a setting that failed (or a crash just after the first snapshot) would otherwise
    // leave the stream keeping every snapshot for ever. Setting it again is harmless.
    if (result.nextExpectedRevision === 0n || !this.limited.has(stream)) {
      await this.client.setStreamMetadata(stream, { maxCount: 1 });
      if (this.limited.size >= 100_000) this.limited.clear();
      this.limited.add(stream);
    }
  }

  async close(): Promise<void> {}
}
