import { Command } from '@nestjs/cqrs';
import type { OpenedConsoleSession } from '#warden/identity';
import type { CommandContext } from '#warden/kernel';
import type { OversizedSamlPost } from '../../saml/saml-response-limits.js';

/**
 * A response posted by the IdP to the ACS: verified, checked to answer the request the posting
 * browser started (`requestBinding`, from its cookie; null without one), its assertion recorded,
 * the user signed in. An OversizedSamlPost in place of the response: the post was over the ACS's
 * body limit and was not read (refused, and recorded, as `response-too-large`).
 */
export class CompleteSamlLoginCommand extends Command<OpenedConsoleSession> {
  constructor(
    readonly orgId: string,
    readonly samlResponse: string | OversizedSamlPost,
    readonly requestBinding: string | null,
    /** The client's address as the server sees it (behind a trusted proxy, the client it names): refusals are throttled per network. */
    readonly clientAddress: string,
    readonly context: CommandContext,
  ) {
    super();
  }
}
