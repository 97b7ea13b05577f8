import { CheckpointConflictError, type ReadStore } from '#warden/readstore';
import type { EventStore } from '../event-store.port.js';
import type { Projection } from './projection.js';

/**
 * The projection's stored checkpoint. A reactor that `succeeds` others and has none of its own
 * yet starts from the earliest of theirs: that one is stored as its own first, by compare-and-set
 * from none, so that workers starting at once agree, and later starts read it back like any other.
 * A predecessor that never ran (0) makes it start from the beginning of the log.
 */
export async function loadCheckpoint(store: ReadStore, projection: Projection): Promise<number> {
  const own = await store.checkpoint(projection.name);
  if (own > 0 || !projection.succeeds?.length) return own;
  const inherited = Math.min(...(await Promise.all(projection.succeeds.map((name) => store.checkpoint(name)))));
  if (inherited === 0) return 0;
  return (await storeFirst(store, projection.name, inherited)) ? inherited : store.checkpoint(projection.name);
}

/** Stores `to` as the projection's checkpoint if it has none yet (compare-and-set from none); false when one was stored first. */
async function storeFirst(store: ReadStore, projection: string, to: number): Promise<boolean> {
  try {
    await store.commit([], { projection, from: 0, to });
    return true;
  } catch (error) {
    if (!(error instanceof CheckpointConflictError)) throw error;
    return false;
  }
}

/**
 * Where a reactor's consumer group starts when it is created: after its own checkpoint kept in the
 * read store (a deployment that ran it as a catch-up subscription before), else, for a reactor that
 * `succeeds` others, after the earliest of their groups' checkpoints (a group that does not exist
 * counts as the start of the log).
 */
export async function groupStart(events: EventStore, store: ReadStore, projection: Projection, groupOf: (name: string) => string): Promise<number> {
  const own = await store.checkpoint(projection.name);
  if (own > 0 || !projection.succeeds?.length) return own;
  // Starting at the beginning instead would handle again every action the predecessors ever did.
  if (!events.groupCheckpoint) throw new Error(`Cannot start ${projection.name} after its predecessors: the event store does not report group checkpoints`);
  const theirs = await Promise.all(projection.succeeds.map(async (name) => (await events.groupCheckpoint!(groupOf(name))) ?? 0));
  return Math.min(...theirs);
}

/**
 * Stores, before any reactor of the process starts, where each reactor that `succeeds` others will
 * start: otherwise a predecessor still running in its new form (the delivery reactor, which now
 * passes published actions over) could move its checkpoint past what the successor inherits from
 * it first. On KurrentDB the group's start is stored as the reactor's own checkpoint in the read
 * store, which its group is created after (groupStart).
 */
export async function settleSuccession(events: EventStore, store: ReadStore, projection: Projection, groupOf: (name: string) => string): Promise<void> {
  if (!projection.succeeds?.length) return;
  if (typeof events.subscribeToGroup !== 'function') {
    await loadCheckpoint(store, projection);
    return;
  }
  const start = await groupStart(events, store, projection, groupOf);
  // Stored already when false: by another worker, or by an earlier start.
  if (start > 0) await storeFirst(store, projection.name, start);
}
