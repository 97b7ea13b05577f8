import { createHash } from 'node:crypto';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import type { OpenedConsoleSession } from '#warden/identity';
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

@CommandHandler(CompleteSamlLoginCommand)
export class CompleteSamlLoginHandler implements ICommandHandler<CompleteSamlLoginCommand> {
  constructor(
    private readonly settings: SsoSettingsReader,
    private readonly provider: SamlServiceProvider,
    private readonly aggregates: AggregateStore,
    private readonly users: SsoUserSignIn,
  ) {}

  /**
   * An unknown organization is a 404 and records nothing (there is no organization to record it
   * for). Every refusal after that is recorded as SsoLoginFailed, then reported. The browser
   * binding is checked after the response is verified, so a forged or altered response keeps its
   * own reason, and before the assertion is used, so a refused one is not spent.
   */
  async execute(command: CompleteSamlLoginCommand): Promise<OpenedConsoleSession> {
    const { orgId, context } = command;
    await this.settings.exists(orgId);
    try {
      const org = await this.settings.samlOrganization(orgId);
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
      return await this.users.signIn(org, identity, context);
    } catch (error) {
      if (error instanceof SsoRefusal) {
        const attemptId = this.aggregates.newId('sso_');
        await this.aggregates.handle(
          ssoLoginFailureStream(orgId, attemptId),
          ssoLoginFailureDecider,
          { type: 'RecordSsoLoginFailure', orgId, attemptId, reason: error.reason },
          context,
        );
      }
      throw error;
    }
  }
}
