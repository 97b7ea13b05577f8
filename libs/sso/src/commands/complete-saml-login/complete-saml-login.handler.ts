import { createHash } from 'node:crypto';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { clientNetworkKey, emailDigest, LoginThrottle, type OpenedConsoleSession } from '#warden/identity';
import { rateLimited } from '#warden/kernel';
import { AggregateStore } from '#warden/storage';
import { samlAssertionDecider } from '../../domain/saml-assertion.decider.js';
import { ssoLoginFailureDecider } from '../../domain/sso-login-failure.decider.js';
import { SsoRefusal, ssoRefused } from '../../domain/sso-refusal.js';
import { samlAssertionStream, ssoLoginFailureStream } from '../../domain/sso.streams.js';
import { isBoundTo } from '../../saml/saml-request-ids.js';
import { SamlServiceProvider } from '../../saml/saml-service-provider.js';
import { SsoSettingsReader } from '../../saml/sso-settings.reader.js';
import { SsoUserSignIn } from '../../sso-user-sign-in.js';
import { CompleteSamlLoginCommand } from './complete-saml-login.command.js';

/** What one ACS post counts against: its organization's SSO sign-in from its client's network. */
export const samlThrottleKeys = (orgId: string, clientAddress: string): string[] => [`saml:${orgId}:${clientNetworkKey(clientAddress)}`];

/** What a refusal of an IdP account's spent assertion counts against first: that account's SSO sign-in (its email's digest, as password sign-in's account key). */
export const samlAccountThrottleKeys = (orgId: string, email: string): string[] => [`saml:${orgId}:account:${emailDigest(email)}`];

@CommandHandler(CompleteSamlLoginCommand)
export class CompleteSamlLoginHandler implements ICommandHandler<CompleteSamlLoginCommand> {
  constructor(
    private readonly settings: SsoSettingsReader,
    private readonly provider: SamlServiceProvider,
    private readonly aggregates: AggregateStore,
    private readonly users: SsoUserSignIn,
    private readonly throttle: LoginThrottle,
  ) {}

  /**
   * An unknown organization is a 404, and one without SAML a 403 (`saml-disabled`): neither is
   * recorded (nothing could have signed in; a stranger's posts would only fill the log). Then the
   * post is counted as password sign-ins are (identity's LoginThrottle, docs/console-access.md):
   * per organization and client network, 10 refusals in 15 minutes, and past them 429 with
   * Retry-After, the response unread and nothing recorded (docs/sso.md, "Limits"). Every refusal
   * within them is recorded as SsoLoginFailed, then reported; a sign-in takes its count back, and a
   * refusal of a response the IdP signed once its assertion is spent moves its count to that IdP
   * account while the account has any left. The
   * browser binding is checked after the response is verified, so a forged or altered response
   * keeps its own reason, and before the assertion is used, so a refused one is not spent.
   */
  async execute(command: CompleteSamlLoginCommand): Promise<OpenedConsoleSession> {
    const { orgId, context } = command;
    const org = await this.settings.samlOrganization(orgId);
    const keys = samlThrottleKeys(orgId, command.clientAddress);
    // Counted before the response is read, so that posts sent at once cannot pass the count.
    const attempt = await this.throttle.begin(keys);
    if (attempt.id === null) {
      throw rateLimited(attempt.retryAfter, 'Too many refused SSO sign-ins for this organization from this network (10 in 15 minutes)');
    }
    /** The IdP account of a response whose assertion was spent: set once it is. */
    let vouchedFor: string | undefined;
    try {
      const identity = await this.provider.verify(org, command.samlResponse);
      // A valid response of someone else's sign-in, posted from another browser (login CSRF), is
      // refused before its assertion is used: it would sign this browser in as that someone.
      if (!isBoundTo(command.requestBinding, identity.inResponseTo)) throw ssoRefused('unbound-request');
      const assertionDigest = createHash('sha256').update(identity.assertionId).digest('hex');
      await this.aggregates.handle(
        samlAssertionStream(orgId, assertionDigest),
        samlAssertionDecider,
        { type: 'AcceptSamlAssertion', orgId, assertionDigest, notOnOrAfter: identity.notOnOrAfter },
        context,
      );
      // The assertion is spent: posted again it is refused as a replay, which counts.
      vouchedFor = identity.email;
      const session = await this.users.signIn(org, identity, context);
      await this.throttle.succeeded(keys, attempt.id);
      return session;
    } catch (error) {
      if (!(error instanceof SsoRefusal)) {
        // Not a refusal (the store failed): no failed sign-in to count.
        await this.throttle.succeeded(keys, attempt.id);
        throw error;
      }
      // A response the organization's IdP signed, refused for who it names (an account unknown
      // here, disabled, without a role) once its assertion was spent: counted against the network,
      // a colleague's missing account would lock a shared office network out of SSO (docs/sso.md,
      // "Limits"). So it counts against that IdP account instead, and against the network only
      // once the account has spent its own ten: a script looping through an IdP session of its own
      // still meets the throttle. A refusal before the assertion is spent (another browser's
      // sign-in, a replay) counts against the network: the same response can be posted again.
      if (vouchedFor !== undefined) {
        const own = await this.throttle.begin(samlAccountThrottleKeys(orgId, vouchedFor));
        if (own.id !== null) await this.throttle.succeeded(keys, attempt.id);
      }
      const attemptId = this.aggregates.newId('sso_');
      await this.aggregates.handle(
        ssoLoginFailureStream(orgId, attemptId),
        ssoLoginFailureDecider,
        { type: 'RecordSsoLoginFailure', orgId, attemptId, reason: error.reason },
        context,
      );
      throw error;
    }
  }
}
