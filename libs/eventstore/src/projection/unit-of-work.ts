import { performance } from 'node:perf_hooks';
import type { ReadDocument, ReadStore, Write } from '#warden/readstore';
import { cloneJson, type RecordedEvent } from '#warden/kernel';
import type { Projection, ProjectionContext } from './projection.js';

const DELETED = Symbol('deleted');
/** The stored position of a document the store does not have: before every event's. */
const ABSENT = -1;

interface Pending {
  readonly collection: string;
  readonly id: string;
  readonly doc: ReadDocument | typeof DELETED;
  readonly position: number;
}

/**
 * Buffers a batch's writes so that they commit in one go with the checkpoint, and makes a
 * redelivered event a no-op per document: each write carries the position of the event being
 * applied, and an event a document already reflects (its stored position is at or past the
 * event's) leaves that document alone. Together with the store's guarded writes this is what
 * makes every projection idempotent by construction (ReadStore's contract).
 */
export class UnitOfWork implements ProjectionContext {
  private readonly pending = new Map<string, Pending>();
  /** Positions of the documents read from the store in this batch. */
  private readonly storedAt = new Map<string, number>();
  private position = 0;

  constructor(private readonly store: ReadStore) {}

  /** The log position of the event the projection is applying now. */
  at(position: number): this {
    this.position = position;
    return this;
  }

  async get<T extends object>(collection: string, id: string): Promise<T | undefined> {
    const k = key(collection, id);
    const p = this.pending.get(k);
    if (p) return p.doc === DELETED ? undefined : (cloneJson(p.doc) as T);
    const found = await this.store.getVersioned<T>(collection, id);
    this.storedAt.set(k, found === undefined ? ABSENT : found.position);
    return found?.doc;
  }

  async writtenBefore(collection: string, id: string): Promise<boolean> {
    const k = key(collection, id);
    const p = this.pending.get(k);
    if (p) return p.doc !== DELETED && p.position < this.position;
    if (!this.storedAt.has(k)) await this.get(collection, id);
    // ABSENT for a document not stored; 0 for one stored before positions were kept (written before any event).
    const stored = this.storedAt.get(k)!;
    return stored !== ABSENT && stored < this.position;
  }

  /** Projections hand over a document they no longer mutate, so it is not copied. */
  put(collection: string, id: string, doc: ReadDocument): void {
    this.stage(collection, id, doc);
  }

  delete(collection: string, id: string): void {
    this.stage(collection, id, DELETED);
  }

  writes(): Write[] {
    return [...this.pending.values()].map((p) =>
      p.doc === DELETED
        ? { op: 'delete', collection: p.collection, id: p.id, position: p.position }
        : { op: 'put', collection: p.collection, id: p.id, doc: p.doc, position: p.position },
    );
  }

  private stage(collection: string, id: string, doc: ReadDocument | typeof DELETED): void {
    const k = key(collection, id);
    // Already applied before a crash left the checkpoint behind: the stored document has it.
    const stored = this.storedAt.get(k);
    if (!this.pending.has(k) && stored !== undefined && stored >= this.position) return;
    this.pending.set(k, { collection, id, doc, position: this.position });
  }
}

/**
 * Applies the events of the projection's types to a fresh unit of work, each write tied to its
 * event's position; `applyBatch` handles events concurrently, so its writes carry the batch's
 * highest. Returns the unit of work (its writes) and how many events applied.
 */
export async function applyEvents(projection: Projection, events: readonly RecordedEvent[], store: ReadStore): Promise<{ uow: UnitOfWork; applied: number }> {
  const wanted = new Set(projection.eventTypes);
  const applicable = projection.log === 'as-stored' || projection.everyEvent ? events : events.filter((e) => wanted.has(e.type));
  const uow = new UnitOfWork(store);
  if (projection.applyBatch) {
    if (applicable.length > 0) await projection.applyBatch(applicable, uow.at(Math.max(...applicable.map((e) => e.position))));
  } else {
    let slice = performance.now();
    for (const e of applicable) {
      await projection.apply(e, uow.at(e.position));
      // A projection's awaits are mostly on reads that are already there (microtasks), so a batch
      // would otherwise run as one block that every request and callback of the process waits for.
      if (performance.now() - slice > YIELD_AFTER_MS) {
        await new Promise<void>((resolve) => setImmediate(resolve));
        slice = performance.now();
      }
    }
  }
  return { uow, applied: applicable.length };
}

/** How long a batch's events are applied before the event loop gets a turn (ms). */
const YIELD_AFTER_MS = 5;

const key = (collection: string, id: string) => `${collection}\u0000${id}`;
