import type { Decider, DomainEvent } from '#warden/kernel';

/**
 * One media URL of one item version, fetched and hashed once (or why it could not be). Generic in
 * the result, whose shape the rules module's MediaHasher port defines: the decision never looks
 * inside it, and the domain stays clear of that module's index (and its Nest code).
 *
 * `result` (the URL, without its query string, and the image's hashes or why there are none) is
 * the item's data as much as the URL it came from: sealed under `subject`'s key (the item's
 * subject, as its ItemSubmitted's data), so a GDPR deletion erases it, and it then reads as null.
 * Events recorded before version 4 have no subject (null) and an unsealed result.
 */
export type MediaHashedOf<Result> = DomainEvent<
  'MediaHashed',
  { item: { id: string; typeId: string }; version: number; subject: string | null; result: Result | null }
>;

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
