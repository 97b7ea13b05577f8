import { CheckpointConflictError, type ReadStore, type Write } from '#warden/readstore';
import type { EventStore } from '../event-store.port.js';
import type { Projection } from './projection.js';

/**
 * The projection's stored checkpoint. A reactor that `succeeds` others and has none of its own
 * yet starts from the earliest of theirs, decided once (decideStart) and stored as its own, so that
 * workers starting at once agree, and later starts read it back like any other. A predecessor
 * that never ran (0) makes it start from the beginning of the log, for good.
 */
export async function loadCheckpoint(store: ReadStore, projection: Projection): Promise<number> {
  const own = await store.checkpoint(projection.name);
  if (own > 0 || !projection.succeeds?.length) return own;
  return decideStart(store, projection, async () => Math.min(...(await Promise.all(projection.succeeds!.map((name) => store.checkpoint(name))))));
}

/**
 * Where a reactor's consumer group starts when it is created: after its own checkpoint kept in the
 * read store (a deployment that ran it as a catch-up subscription before), else, for a reactor that
 * `succeeds` others, after the earliest of their groups' checkpoints (a group that does not exist
 * counts as the start of the log), decided once like loadCheckpoint's.
 */
export async function groupStart(events: EventStore, store: ReadStore, projection: Projection, groupOf: (name: string) => string): Promise<number> {
  const own = await store.checkpoint(projection.name);
  if (own > 0 || !projection.succeeds?.length) return own;
  return decideStart(store, projection, async () => {
    // Starting at the beginning instead would handle again every action the predecessors ever did.
    if (!events.groupCheckpoint) throw new Error(`Cannot start ${projection.name} after its predecessors: the event store does not report group checkpoints`);
    const theirs = await Promise.all(projection.succeeds!.map(async (name) => (await events.groupCheckpoint!(groupOf(name))) ?? 0));
    return Math.min(...theirs);
  });
}

/**
 * Where each successor's start is recorded once decided, one document per successor (a read-model
 * collection: dropped with the checkpoints when the read models are, never by a rebuild, which
 * leaves reactors alone).
 */
export const SUCCESSIONS = 'projection_successions';

/**
 * Decides once where a successor with no checkpoint of its own starts, `inherited` read now, and
 * records the decision with the start (one commit, compare-and-set from no checkpoint). Once
 * decided it never inherits again: a predecessor that still runs (the rules engine's report
 * routing, whose routes review's report-jobs reactor opens as jobs) moves on past what the
 * successor has not handled yet, and a second look at its checkpoint before the successor's first
 * commit (a restart, a catch-up, another worker taking its lease) would skip that work. A
 * successor decided at the beginning of the log (its predecessors had not run: a fresh install)
 * stays there until it commits.
 *
 * Workers deciding at once agree on a start past the beginning (the second move from none fails).
 * One that decided the beginning cannot stop another, which read no decision a moment before, from
 * storing a later start its predecessor reached meanwhile; only a create-only write of the decision
 * would close that, and the other would have to stall between two reads for as long as a process
 * takes to start its reactors and commit a batch.
 */
async function decideStart(store: ReadStore, projection: Projection, inherited: () => Promise<number>): Promise<number> {
  const decided = await store.get<{ start?: number }>(SUCCESSIONS, projection.name);
  if (decided) {
    const own = await store.checkpoint(projection.name);
    // MongoDB writes the document before it moves the checkpoint: a crash in between left the
    // decision without its start, which is stored now rather than the whole log replayed.
    const start = typeof decided.start === 'number' ? decided.start : 0;
    if (own > 0 || start === 0) return own;
    return (await storeFirst(store, projection.name, start)) ? start : store.checkpoint(projection.name);
  }
  const start = await inherited();
  const decision: Write = { op: 'put', collection: SUCCESSIONS, id: projection.name, doc: { projection: projection.name, start } };
  // Another worker decided first and stored its start (or has moved on from it): go on from there.
  return (await storeFirst(store, projection.name, start, [decision])) ? start : store.checkpoint(projection.name);
}

/**
 * Stores `to` as the projection's checkpoint, with `writes`, if it has none yet (compare-and-set
 * from none); false when one was stored first.
 */
async function storeFirst(store: ReadStore, projection: string, to: number, writes: readonly Write[] = []): Promise<boolean> {
  try {
    await store.commit(writes, { projection, from: 0, to });
    return true;
  } catch (error) {
    if (!(error instanceof CheckpointConflictError)) throw error;
    return false;
  }
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
  if (typeof events.subscribeToGroup !== 'function') await loadCheckpoint(store, projection);
  else await groupStart(events, store, projection, groupOf);
}
