import type { Decider, Json } from '#warden/kernel';
import type { AccessAuditEvent, ConsoleInvestigationViewed, ConsoleLoginFailed } from './user.events.js';

/** A sign-in that failed, as the audit keeps it (never the password, the address only as its digest). */
export interface RecordLoginFailure {
  readonly type: 'RecordLoginFailure';
  readonly failure: ConsoleLoginFailed['data'];
}

/** A console user's lookup in Investigate: who looked at which item or user. */
export interface RecordInvestigationView {
  readonly type: 'RecordInvestigationView';
  readonly view: ConsoleInvestigationViewed['data'];
}

export type AccessAuditCommand = RecordLoginFailure | RecordInvestigationView;

export interface AccessAuditState {
  /** Failures recorded so far (lookups are recorded but not counted): all a decision needs to know of a trail that only grows. */
  readonly failures: number;
}

/**
 * An organization's access-audit trail (or the deployment's, for unknown addresses): every failed
 * sign-in and every Investigate lookup is recorded, whatever came before. Its state is a count, so a long trail costs a command
 * no more than a short one (snapshotted).
 */
export const accessAuditDecider: Decider<AccessAuditCommand, AccessAuditState, AccessAuditEvent> = {
  eventTypes: { ConsoleLoginFailed: true, ConsoleInvestigationViewed: true },
  initialState: { failures: 0 },

  decide(command) {
    if (command.type === 'RecordInvestigationView') return [{ type: 'ConsoleInvestigationViewed', data: command.view }];
    return [{ type: 'ConsoleLoginFailed', data: command.failure }];
  },

  evolve(state, event) {
    return event.type === 'ConsoleLoginFailed' ? { failures: state.failures + 1 } : state;
  },

  snapshot: { name: 'console_access', version: 1, encode: (state) => ({ ...state }), decode: (json: Json) => json as unknown as AccessAuditState },
};
