import type { Decider } from '#warden/kernel';
import type { SsoLoginEvent, SsoRefusalReason } from './sso.events.js';

export type SsoLoginFailureCommand = { type: 'RecordSsoLoginFailure'; orgId: string; attemptId: string; reason: SsoRefusalReason };
export type SsoLoginFailureState = { recorded: boolean };

/** One stream per refused attempt (the request id): recording it again is a no-op. */
export const ssoLoginFailureDecider: Decider<SsoLoginFailureCommand, SsoLoginFailureState, SsoLoginEvent> = {
  eventTypes: { SsoLoginFailed: true },
  initialState: { recorded: false },
  decide(command, state) {
    if (state.recorded) return [];
    const { type: _type, ...data } = command;
    return [{ type: 'SsoLoginFailed', data }];
  },
  evolve() {
    return { recorded: true };
  },
};
