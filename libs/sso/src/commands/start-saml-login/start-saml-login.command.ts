import { Command } from '@nestjs/cqrs';

/**
 * The IdP URL to send a browser to, carrying a fresh AuthnRequest (HTTP-Redirect binding), and
 * the binding the browser keeps so the ACS accepts the response only from it (requestBindingOf).
 */
export class StartSamlLoginCommand extends Command<{ location: string; requestBinding: string }> {
  constructor(
    readonly orgId: string,
    /** Ask the IdP to authenticate the user again (ForceAuthn): a sign-in that a recent-sign-in refusal asked for. */
    readonly forceAuthn = false,
  ) {
    super();
  }
}
