import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { requestBindingOf } from '../../saml/saml-request-ids.js';
import { SamlServiceProvider } from '../../saml/saml-service-provider.js';
import { SsoSettingsReader } from '../../saml/sso-settings.reader.js';
import { StartSamlLoginCommand } from './start-saml-login.command.js';

/**
 * Records nothing: the request id carries its own proof (SealedRequestIds), so a signed-out
 * browser that only opens the login URL leaves no trace in the log; the browser itself keeps the
 * binding to its request (a cookie the route sets). A disabled organization is
 * refused here without an event; the ACS records refused responses.
 */
@CommandHandler(StartSamlLoginCommand)
export class StartSamlLoginHandler implements ICommandHandler<StartSamlLoginCommand> {
  constructor(
    private readonly settings: SsoSettingsReader,
    private readonly provider: SamlServiceProvider,
  ) {}

  async execute(command: StartSamlLoginCommand): Promise<{ location: string; requestBinding: string }> {
    const org = await this.settings.samlOrganization(command.orgId);
    const { location, requestId } = await this.provider.loginRedirect(org, command.forceAuthn);
    return { location, requestBinding: requestBindingOf(requestId) };
  }
}
