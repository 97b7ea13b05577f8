import type { CheckpointMove, ReadStore, Write } from '#warden/readstore';

/**
 * The store as a process that died between a commit's writes and its checkpoint move leaves it:
 * the writes land, the checkpoint does not move, the commit fails with `crash`. That is the MongoDB
 * adapter's window (writes first, checkpoint last); a projection must change nothing when the
 * batch is delivered again.
 */
export function crashingBeforeCheckpoint(store: ReadStore, crash: Error = new Error('crashed after the writes, before the checkpoint')): ReadStore {
  return new Proxy(store, {
    get(target, prop, receiver) {
      if (prop !== 'commit') return Reflect.get(target, prop, receiver) as unknown;
      return async (writes: readonly Write[], _checkpoint?: CheckpointMove) => {
        await target.commit(writes);
        throw crash;
      };
    },
  });
}

/**
 * The store as a commit that died partway leaves it on MongoDB (one bulk write per collection, no
 * transaction): only the writes to `landed` collections are stored, then the commit fails and the
 * checkpoint stays. A projection must complete the other writes when the batch is delivered again.
 */
export function crashingPartway(
  store: ReadStore,
  landed: readonly string[],
  crash: Error = new Error('crashed after some collections were written'),
): ReadStore {
  return new Proxy(store, {
    get(target, prop, receiver) {
      if (prop !== 'commit') return Reflect.get(target, prop, receiver) as unknown;
      return async (writes: readonly Write[], _checkpoint?: CheckpointMove) => {
        await target.commit(writes.filter((w) => landed.includes(w.collection)));
        throw crash;
      };
    },
  });
}
