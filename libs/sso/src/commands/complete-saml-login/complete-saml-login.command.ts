import { Command } from '@nestjs/cqrs';
import type { CommandContext } from '#warden/kernel';

/** A response posted by the IdP to the ACS: verified, its assertion recorded, the user signed in. */
export class CompleteSamlLoginCommand<Session = unknown> extends Command<Session> {
  constructor(
    readonly orgId: string,
    readonly samlResponse: string,
    readonly context: CommandContext,
  ) {
    super();
  }
}
