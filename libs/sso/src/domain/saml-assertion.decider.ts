import type { Decider } from '#warden/kernel';
import { ssoRefused } from './sso-refusal.js';
import type { SamlAssertionEvent } from './sso.events.js';

export type SamlAssertionCommand = {
  type: 'AcceptSamlAssertion';
  orgId: string;
  assertionDigest: string;
  notOnOrAfter: string | null;
};
export type SamlAssertionState = { accepted: boolean };

/**
 * One stream per assertion id (by digest): the first sign-in with an assertion records it, any
 * later one is a replay. Decided on the write side, so two processes handed the same captured
 * response at once cannot both accept it (the second append conflicts, decides again, refuses).
 */
export const samlAssertionDecider: Decider<SamlAssertionCommand, SamlAssertionState, SamlAssertionEvent> = {
  eventTypes: { SamlAssertionAccepted: true },
  initialState: { accepted: false },
  decide(command, state) {
    if (state.accepted) throw ssoRefused('replayed');
    const { type: _type, ...data } = command;
    return [{ type: 'SamlAssertionAccepted', data }];
  },
  evolve() {
    return { accepted: true };
  },
};
