import { Command } from '@nestjs/cqrs';
import type { CommandContext } from '#warden/kernel';
import type { CreatedApiKey } from '../create-api-key/create-api-key.command.js';

/** Rotation creates a new key and deactivates the old one (docs/console-access.md, "API keys (permission `MANAGE_API_KEYS`: ADMIN)"). */
export class RotateApiKeyCommand extends Command<CreatedApiKey> {
  constructor(
    readonly orgId: string,
    readonly keyId: string,
    readonly context: CommandContext,
  ) {
    super();
  }
}
