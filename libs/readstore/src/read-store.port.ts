import type { Json } from '#warden/kernel';

/** A read-model document: plain JSON, addressed by (collection, id). */
export type ReadDocument = { [key: string]: Json };

/**
 * Bounds on a field holding strings or numbers: below `lt`, at or above `gte`. Only values of the
 * bound's own type match (a string bound never matches a number); strings compare by their UTF-8
 * bytes, so ISO 8601 timestamps written alike (`toISOString`) sort by time. Not for fields holding
 * arrays or objects: the adapters differ there (MongoDB compares array elements).
 */
export interface Range {
  readonly lt?: string | number;
  readonly gte?: string | number;
}

/** Equality (or a Range) on fields; dotted names reach into nested objects (`owner.id`). */
export type Filter = Readonly<Record<string, string | number | boolean | null | Range>>;

export const isRange = (value: Filter[string]): value is Range => typeof value === 'object' && value !== null;

/**
 * `sort`'s ties, and an unsorted find, come in an order each store keeps stable between finds, so
 * that `skip` pages through them: on SQLite the order documents were first written (reversed after
 * a descending key), on MongoDB by id (reversed after a descending key; ascending with `byId`).
 */
export interface FindOptions {
  readonly sort?: ReadonlyArray<{ readonly field: string; readonly direction: 'asc' | 'desc' }>;
  /**
   * Ties, and an unsorted find, by document id on every store: the same order wherever and
   * however the documents were written (the read models' digest). Costs a sort on SQLite where
   * a filter or sort is served by another index.
   */
  readonly byId?: boolean;
  readonly limit?: number;
  readonly skip?: number;
}

export interface CountOptions {
  readonly limit?: number;
}

/**
 * `position`, when given, is the log position of the last event applied to the document. The store
 * then applies the write only if the document it holds was last written at an earlier position (or
 * without one): a batch delivered again after a crash cannot overwrite, let alone double-apply,
 * what it already wrote. Writes without a position (tools, tests) always apply.
 */
export type Write =
  | { readonly op: 'put'; readonly collection: string; readonly id: string; readonly doc: ReadDocument; readonly position?: number }
  | { readonly op: 'delete'; readonly collection: string; readonly id: string; readonly position?: number };

/** A document with the log position it was last written at (0: written without one). */
export interface VersionedDocument<T extends object = ReadDocument> {
  readonly doc: T;
  readonly position: number;
}

export interface CheckpointMove {
  readonly projection: string;
  /** The checkpoint the writer last saw; the commit fails if the store holds another. */
  readonly from: number;
  readonly to: number;
}

/**
 * The read side's store. Contract, on every adapter:
 * - Projections are idempotent per document, by construction: each put/delete of a projection
 *   carries the position of the event that caused it, the store refuses to write a document back
 *   to an earlier or equal position, and the projection runner's unit of work skips an event for a
 *   document that already reflects it (see `getVersioned`). So a batch redelivered without its
 *   checkpoint (a crash between the writes and the checkpoint move, possible on MongoDB) changes
 *   nothing, whatever the projection computes from the document it reads.
 * - A checkpoint only moves forward by compare-and-set (`CheckpointMove.from`).
 */
export interface ReadStore {
  get<T extends object = ReadDocument>(collection: string, id: string): Promise<T | undefined>;
  /** As `get`, with the log position the document was last written at. */
  getVersioned<T extends object = ReadDocument>(collection: string, id: string): Promise<VersionedDocument<T> | undefined>;
  find<T extends object = ReadDocument>(collection: string, filter?: Filter, options?: FindOptions): Promise<T[]>;
  /**
   * How many documents match; with `limit`, at most that many are counted (a list's "10,000 or
   * more" costs what 10,000 do, however long the collection has grown).
   */
  count(collection: string, filter?: Filter, options?: CountOptions): Promise<number>;
  /**
   * Serves equality filters on these fields (in this order, a prefix of them also works, and a
   * Range on the field after that prefix) from an index instead of a scan of the collection.
   * Idempotent; projections declare theirs.
   */
  ensureIndex(collection: string, fields: readonly string[]): Promise<void>;
  /**
   * Drops the index ensureIndex made on these fields, if there is one (a projection's retired
   * index); true when this call dropped it. Only that index, by the name ensureIndex gives it: none
   * made otherwise is touched. Two processes dropping it at once both succeed.
   */
  dropIndex(collection: string, fields: readonly string[]): Promise<boolean>;
  /**
   * Writes a projection's unit of work together with its checkpoint move: atomically on SQLite;
   * on MongoDB the writes land first and the checkpoint moves last, so a crash in between
   * redelivers the batch, which the per-document positions make harmless (see above). Throws
   * CheckpointConflictError when another writer moved the checkpoint.
   */
  commit(writes: readonly Write[], checkpoint?: CheckpointMove): Promise<void>;
  /** The stored checkpoint of a projection; 0 when it has none. */
  checkpoint(projection: string): Promise<number>;
  /** Empties collections and resets the projections' checkpoints to 0 (rebuild). */
  reset(collections: readonly string[], projections: readonly string[]): Promise<void>;
  /**
   * After a GDPR deletion purged documents: no earlier version of them stays where this store can
   * reach it. SQLite empties its write-ahead log (whose older frames still hold the pages as they
   * were) into the file, whose deleted cells and freed pages are zeroed (secure_delete); MongoDB
   * offers a client nothing to ask.
   */
  purgeEarlierVersions(): Promise<void>;
  ping(): Promise<void>;
  close(): Promise<void>;
}

export const READ_STORE = Symbol('ReadStore');

export class CheckpointConflictError extends Error {
  constructor(
    readonly projection: string,
    readonly expected: number,
    readonly actual: number,
  ) {
    super(`Projection ${projection}: checkpoint moved to ${actual}, expected ${expected}`);
    this.name = 'CheckpointConflictError';
  }
}

export class ReadStoreUnavailableError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ReadStoreUnavailableError';
  }
}
