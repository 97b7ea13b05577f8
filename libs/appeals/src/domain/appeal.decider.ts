import type { Decider } from '#warden/kernel';
import type { AppealEvent, AppealSubmitted } from './appeal.events.js';

/** Records a checked appeal under the platform's appeal id. */
export interface SubmitAppeal {
  readonly type: 'SubmitAppeal';
  readonly appeal: AppealSubmitted['data'];
}

export type AppealCommand = SubmitAppeal;

export interface AppealState {
  readonly appealId: string | null;
}

/**
 * One appeal per stream, named by the platform's `appealId`. The first submission stands: the
 * same id again — a retry, or a different body under a reused id — records nothing, so an appeal
 * already routed (and perhaps decided) is never rewritten behind the moderators' backs.
 */
export const appealDecider: Decider<AppealCommand, AppealState, AppealEvent> = {
  eventTypes: { AppealSubmitted: true },
  initialState: { appealId: null },

  decide(command, state) {
    if (state.appealId !== null) return [];
    return [{ type: 'AppealSubmitted', data: command.appeal }];
  },

  evolve(_state, event) {
    return { appealId: event.data.appealId };
  },
};
