import { Command } from '@nestjs/cqrs';
import type { CommandContext } from '#warden/kernel';
import type { CreatedApiKey } from '../create-api-key/create-api-key.command.js';

/** Spec 5.3: rotation creates a new key and deactivates the old one. */
export class RotateApiKeyCommand extends Command<CreatedApiKey> {
  constructor(
    readonly orgId: string,
    readonly keyId: string,
    readonly context: CommandContext,
  ) {
    super();
  }
}
