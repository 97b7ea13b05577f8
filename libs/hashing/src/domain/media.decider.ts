import type { Decider } from '#warden/kernel';
import type { MediaResult } from '#warden/rules';
import type { MediaHashed } from '../media/media.events.js';

/** Records what fetching and hashing one media URL of an item version gave. */
export interface RecordMediaResult {
  readonly type: 'RecordMediaResult';
  readonly item: { readonly id: string; readonly typeId: string };
  readonly version: number;
  readonly result: MediaResult;
}

export interface MediaState {
  readonly result: MediaResult | null;
}

/**
 * One media URL of one item version: its result is recorded once; a later record of it (a
 * re-run, a retroaction racing the worker) decides nothing, and the first result stands.
 */
export const mediaDecider: Decider<RecordMediaResult, MediaState, MediaHashed> = {
  eventTypes: { MediaHashed: true },
  initialState: { result: null },

  decide(command, state) {
    if (state.result !== null) return [];
    return [{ type: 'MediaHashed', data: { item: { id: command.item.id, typeId: command.item.typeId }, version: command.version, result: command.result } }];
  },

  evolve(state, event) {
    return state.result === null ? { result: event.data.result } : state;
  },
};
