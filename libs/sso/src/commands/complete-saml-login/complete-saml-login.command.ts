import { Command } from '@nestjs/cqrs';
import type { OpenedConsoleSession } from '#warden/identity';
import type { CommandContext } from '#warden/kernel';

/**
 * A response posted by the IdP to the ACS: verified, checked to answer the request the posting
 * browser started (`requestBinding`, from its cookie; null without one), its assertion recorded,
 * the user signed in.
 */
export class CompleteSamlLoginCommand extends Command<OpenedConsoleSession> {
  constructor(
    readonly orgId: string,
    readonly samlResponse: string,
    readonly requestBinding: string | null,
    readonly context: CommandContext,
  ) {
    super();
  }
}
