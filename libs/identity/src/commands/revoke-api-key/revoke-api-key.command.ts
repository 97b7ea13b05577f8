import { Command } from '@nestjs/cqrs';
import type { CommandContext } from '#warden/kernel';

export class RevokeApiKeyCommand extends Command<void> {
  constructor(
    readonly orgId: string,
    readonly keyId: string,
    readonly context: CommandContext,
  ) {
    super();
  }
}
