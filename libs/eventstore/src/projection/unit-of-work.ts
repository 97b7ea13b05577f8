import type { ReadDocument, ReadStore, Write } from '../../../readstore/src/index.js';
import type { ProjectionContext } from './projection.js';

const DELETED = Symbol('deleted');

/** Buffers a batch's writes so that they commit in one go with the checkpoint. */
export class UnitOfWork implements ProjectionContext {
  private readonly pending = new Map<string, { collection: string; id: string; doc: ReadDocument | typeof DELETED }>();

  constructor(private readonly store: ReadStore) {}

  async get<T extends object>(collection: string, id: string): Promise<T | undefined> {
    const p = this.pending.get(key(collection, id));
    if (p) return p.doc === DELETED ? undefined : (structuredClone(p.doc) as T);
    return this.store.get<T>(collection, id);
  }

  /** Projections hand over a document they no longer mutate, so it is not copied. */
  put(collection: string, id: string, doc: ReadDocument): void {
    this.pending.set(key(collection, id), { collection, id, doc });
  }

  delete(collection: string, id: string): void {
    this.pending.set(key(collection, id), { collection, id, doc: DELETED });
  }

  writes(): Write[] {
    return [...this.pending.values()].map((p) =>
      p.doc === DELETED
        ? { op: 'delete', collection: p.collection, id: p.id }
        : { op: 'put', collection: p.collection, id: p.id, doc: p.doc },
    );
  }
}

const key = (collection: string, id: string) => `${collection}\u0000${id}`;
