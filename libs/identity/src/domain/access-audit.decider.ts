import type { Decider, Json } from '#warden/kernel';
import type { AccessAuditEvent, ConsoleLoginFailed } from './user.events.js';

/** A sign-in that failed, as the audit keeps it (never the password, the address only as its digest). */
export interface RecordLoginFailure {
  readonly type: 'RecordLoginFailure';
  readonly failure: ConsoleLoginFailed['data'];
}

export type AccessAuditCommand = RecordLoginFailure;

export interface AccessAuditState {
  /** Failures recorded so far: all a decision needs to know of a trail that only grows. */
  readonly failures: number;
}

/**
 * An organization's access-audit trail (or the deployment's, for unknown addresses): every failed
 * sign-in is recorded, whatever came before. Its state is a count, so a long trail costs a command
 * no more than a short one (snapshotted).
 */
export const accessAuditDecider: Decider<AccessAuditCommand, AccessAuditState, AccessAuditEvent> = {
  eventTypes: { ConsoleLoginFailed: true },
  initialState: { failures: 0 },

  decide(command) {
    return [{ type: 'ConsoleLoginFailed', data: command.failure }];
  },

  evolve(state) {
    return { failures: state.failures + 1 };
  },

  snapshot: { name: 'console_access', version: 1, encode: (state) => ({ ...state }), decode: (json: Json) => json as unknown as AccessAuditState },
};
