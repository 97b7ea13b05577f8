import type { Json } from '#warden/kernel';

/** A decider's state as it was after a stream's event at `revision` (SnapshotPolicy). */
export interface StoredSnapshot {
  /** The snapshot policy's name: one stream may be folded by more than one decider. */
  readonly name: string;
  readonly version: number;
  readonly revision: number;
  readonly state: Json;
}

/**
 * Where long streams' snapshots live, beside the log (docs/architecture.md, "Write side"): the embedded profile
 * in a table of the log's file, KurrentDB in a snapshot stream per stream. A snapshot only ever
 * saves reading; losing one costs a longer read, never a wrong state.
 */
export interface SnapshotStore {
  /**
   * The largest snapshot, as JSON, the store takes (KurrentDB's: what one append may hold); none
   * larger is written. Undefined: no limit of its own (the embedded table).
   */
  readonly maxBytes?: number;
  /** The newest snapshot of the stream under `name`, whatever its version. */
  read(streamName: string, name: string): Promise<StoredSnapshot | undefined>;
  /** Replaces the stream's snapshot under the same name; a write behind a newer one is dropped. */
  write(streamName: string, snapshot: StoredSnapshot): Promise<void>;
  close(): Promise<void>;
}
