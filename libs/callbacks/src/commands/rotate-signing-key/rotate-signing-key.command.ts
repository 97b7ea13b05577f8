import { Command } from '@nestjs/cqrs';
import type { CommandContext } from '#warden/kernel';

export interface RotatedSigningKey {
  readonly kid: string;
  /** The key it replaces: still published (and verifying) until retired. */
  readonly replaced: string | null;
}

/** Adds a new signing key that signs from now on. */
export class RotateSigningKeyCommand extends Command<RotatedSigningKey> {
  constructor(
    readonly orgId: string,
    readonly context: CommandContext,
  ) {
    super();
  }
}
