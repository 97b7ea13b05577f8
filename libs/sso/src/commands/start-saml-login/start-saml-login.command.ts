import { Command } from '@nestjs/cqrs';

/** The IdP URL to send a browser to, carrying a fresh AuthnRequest (HTTP-Redirect binding). */
export class StartSamlLoginCommand extends Command<{ location: string }> {
  constructor(readonly orgId: string) {
    super();
  }
}
