import type { Json } from '../../kernel/src/index.js';

/** A read-model document: plain JSON, addressed by (collection, id). */
export type ReadDocument = { [key: string]: Json };

/** Equality on fields; dotted names reach into nested objects (`owner.id`). */
export type Filter = Readonly<Record<string, string | number | boolean | null>>;

export interface FindOptions {
  readonly sort?: ReadonlyArray<{ readonly field: string; readonly direction: 'asc' | 'desc' }>;
  readonly limit?: number;
  readonly skip?: number;
}

export type Write =
  | { readonly op: 'put'; readonly collection: string; readonly id: string; readonly doc: ReadDocument }
  | { readonly op: 'delete'; readonly collection: string; readonly id: string };

export interface CheckpointMove {
  readonly projection: string;
  /** The checkpoint the writer last saw; the commit fails if the store holds another. */
  readonly from: number;
  readonly to: number;
}

export interface ReadStore {
  get<T extends object = ReadDocument>(collection: string, id: string): Promise<T | undefined>;
  find<T extends object = ReadDocument>(collection: string, filter?: Filter, options?: FindOptions): Promise<T[]>;
  count(collection: string, filter?: Filter): Promise<number>;
  /**
   * Serves equality filters on these fields (in this order, a prefix of them also works) from an
   * index instead of a scan of the collection. Idempotent; projections declare theirs.
   */
  ensureIndex(collection: string, fields: readonly string[]): Promise<void>;
  /**
   * Writes a projection's unit of work together with its checkpoint move: atomically on SQLite;
   * on MongoDB the writes land first, so a crash in between replays them (projections are
   * idempotent). Throws CheckpointConflictError when another writer moved the checkpoint.
   */
  commit(writes: readonly Write[], checkpoint?: CheckpointMove): Promise<void>;
  /** The stored checkpoint of a projection; 0 when it has none. */
  checkpoint(projection: string): Promise<number>;
  /** Empties collections and resets the projections' checkpoints to 0 (rebuild). */
  reset(collections: readonly string[], projections: readonly string[]): Promise<void>;
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
