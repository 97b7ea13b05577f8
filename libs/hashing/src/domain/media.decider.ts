import type { Decider } from '#warden/kernel';
import type { MediaHashedOf } from './media.events.js';

/** Records what fetching and hashing one media URL of an item version gave. */
export interface RecordMediaResult<Result> {
  readonly type: 'RecordMediaResult';
  readonly item: { readonly id: string; readonly typeId: string };
  readonly version: number;
  /** Whose personal data the item's media is (the item's subject: its creator, or the item itself). */
  readonly subject: string;
  readonly result: Result;
}

export interface MediaState<Result> {
  /** Whether the URL's result was recorded: it may read as null since (erased). */
  readonly recorded: boolean;
  readonly result: Result | null;
}

/**
 * A media URL's result is recorded once; a later record of it (a re-run, a retroaction racing the
 * worker) decides nothing, and the first result stands, even once erased.
 */
export function mediaDecider<Result>(): Decider<RecordMediaResult<Result>, MediaState<Result>, MediaHashedOf<Result>> {
  return {
    eventTypes: { MediaHashed: true },
    initialState: { recorded: false, result: null },

    decide(command, state) {
      if (state.recorded) return [];
      // The item's identity only: callers hand in the item under evaluation, data and all.
      const item = { id: command.item.id, typeId: command.item.typeId };
      return [{ type: 'MediaHashed', data: { item, version: command.version, subject: command.subject, result: command.result } }];
    },

    evolve(state, event) {
      return state.recorded ? state : { recorded: true, result: event.data.result };
    },
  };
}
