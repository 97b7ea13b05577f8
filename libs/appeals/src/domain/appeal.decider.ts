import type { Decider } from '#warden/kernel';
import type { AppealDecided, AppealEvent, AppealSubmitted } from './appeal.events.js';

/** Records a checked appeal under the platform's appeal id. */
export interface SubmitAppeal {
  readonly type: 'SubmitAppeal';
  readonly appeal: AppealSubmitted['data'];
}

/** Records the outcome a review decision gave the appeal; what was appealed comes from the appeal. */
export interface DecideAppeal {
  readonly type: 'DecideAppeal';
  readonly decided: Omit<AppealDecided['data'], 'actionedItem' | 'actionsTaken'>;
}

export type AppealCommand = SubmitAppeal | DecideAppeal;

export interface AppealState {
  readonly appealId: string | null;
  readonly decision: 'ACCEPT' | 'REJECT' | null;
  /** What the appeal is about, as submitted. */
  readonly appealed: { readonly actionedItem: { id: string; typeId: string }; readonly actionsTaken: readonly string[] } | null;
}

/**
 * One appeal per stream, named by the platform's `appealId`. The first submission stands: the
 * same id again — a retry, or a different body under a reused id — records nothing, so an appeal
 * already routed (and perhaps decided) is never rewritten behind the moderators' backs. An appeal
 * is decided once (its one job takes one decision); a re-run of the reactor records nothing more.
 */
export const appealDecider: Decider<AppealCommand, AppealState, AppealEvent> = {
  eventTypes: { AppealSubmitted: true, AppealDecided: true },
  initialState: { appealId: null, decision: null, appealed: null },

  decide(command, state) {
    switch (command.type) {
      case 'SubmitAppeal':
        if (state.appealId !== null) return [];
        return [{ type: 'AppealSubmitted', data: command.appeal }];
      case 'DecideAppeal':
        // Nothing to decide on a stream without the appeal (a foreign job); once decided, it stays.
        if (state.appealId === null || state.appealed === null || state.decision !== null) return [];
        return [
          {
            type: 'AppealDecided',
            data: {
              ...command.decided,
              actionedItem: { id: state.appealed.actionedItem.id, typeId: state.appealed.actionedItem.typeId },
              actionsTaken: [...state.appealed.actionsTaken],
            },
          },
        ];
    }
  },

  evolve(state, event) {
    switch (event.type) {
      case 'AppealSubmitted':
        return { ...state, appealId: event.data.appealId, appealed: { actionedItem: event.data.actionedItem, actionsTaken: event.data.actionsTaken } };
      case 'AppealDecided':
        return { ...state, decision: event.data.decision };
    }
  },
};
