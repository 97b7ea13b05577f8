import type { Decider, DomainEvent } from '#warden/kernel';

/**
 * One media URL of one item version, fetched and hashed once (or why it could not be). Generic in
 * the result, whose shape the rules module's MediaHasher port defines: the decision never looks
 * inside it, and the domain stays clear of that module's index (and its Nest code).
 */
export type MediaHashedOf<Result> = DomainEvent<
  'MediaHashed',
  { item: { id: string; typeId: string }; version: number; result: Result }
>;

/** Records what fetching and hashing one media URL of an item version gave. */
export interface RecordMediaResult<Result> {
  readonly type: 'RecordMediaResult';
  readonly item: { readonly id: string; readonly typeId: string };
  readonly version: number;
  readonly result: Result;
}

export interface MediaState<Result> {
  readonly result: Result | null;
}

/**
 * A media URL's result is recorded once; a later record of it (a re-run, a retroaction racing the
 * worker) decides nothing, and the first result stands.
 */
export function mediaDecider<Result>(): Decider<RecordMediaResult<Result>, MediaState<Result>, MediaHashedOf<Result>> {
  return {
    eventTypes: { MediaHashed: true },
    initialState: { result: null },

    decide(command, state) {
      if (state.result !== null) return [];
      // The item's identity only: callers hand in the item under evaluation, data and all.
      const item = { id: command.item.id, typeId: command.item.typeId };
      return [{ type: 'MediaHashed', data: { item, version: command.version, result: command.result } }];
    },

    evolve(state, event) {
      return state.result === null ? { result: event.data.result } : state;
    },
  };
}
