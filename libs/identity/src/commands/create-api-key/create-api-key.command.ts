import { Command } from '@nestjs/cqrs';
import type { CommandContext } from '#warden/kernel';

export interface CreatedApiKey {
  readonly keyId: string;
  readonly orgId: string;
  /** The first characters of the key, as listed. */
  readonly prefix: string;
  /** The key itself: shown once, never stored. */
  readonly key: string;
}

export class CreateApiKeyCommand extends Command<CreatedApiKey> {
  constructor(
    readonly orgId: string,
    readonly name: string | null,
    readonly team: string | null,
    readonly context: CommandContext,
    /** Set when the key replaces another one (rotation). */
    readonly rotatedFrom: string | null = null,
  ) {
    super();
  }
}
