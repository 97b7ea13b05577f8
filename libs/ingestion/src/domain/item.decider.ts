import { type Decider, itemSubject } from '#warden/kernel';
import type { ItemIdentifier, ItemSubmitted } from './item.events.js';

/** An item already validated against its item type, with its creator resolved. */
export interface SubmitItemVersion {
  readonly type: 'SubmitItemVersion';
  readonly item: {
    readonly id: string;
    readonly typeId: string;
    readonly data: { [field: string]: unknown };
    readonly typeVersion?: string;
    readonly typeSchemaVariant?: 'original' | 'partial';
  };
  readonly creator: ItemIdentifier | null;
  /** Which endpoint accepted it. */
  readonly source: ItemSubmitted['data']['source'];
}

export type ItemCommand = SubmitItemVersion;
export type ItemEvent = ItemSubmitted;

export interface ItemState {
  /** Versions recorded so far; the next one recorded gets this number. */
  readonly versions: number;
}

/**
 * An item's stream: one ItemSubmitted per version. A version is always accepted, whatever was
 * recorded before: the decision never reads the state, and the store numbers the versions (the
 * revision an ItemSubmitted lands at is its version). That is what lets the submit handler append
 * without reading the stream first (expected revision 'any'); should a decision ever depend on
 * earlier versions, the handler must load the stream and append with its revision instead.
 */
export const itemDecider: Decider<ItemCommand, ItemState, ItemEvent> = {
  eventTypes: { ItemSubmitted: true },
  initialState: { versions: 0 },

  decide(command) {
    const { item, creator, source } = command;
    return [
      {
        type: 'ItemSubmitted',
        data: {
          itemId: item.id,
          typeId: item.typeId,
          typeVersion: item.typeVersion ?? null,
          typeSchemaVariant: item.typeSchemaVariant ?? 'original',
          data: item.data,
          creator,
          subject: itemSubject(item, creator),
          source,
        },
      },
    ];
  },

  evolve(state) {
    return { versions: state.versions + 1 };
  },
};
