import { Command } from '@nestjs/cqrs';
import type { CommandContext } from '#warden/kernel';

/** Stops publishing a rotated-out key; true when it was retired now (false: it was already). */
export class RetireSigningKeyCommand extends Command<boolean> {
  constructor(
    readonly orgId: string,
    readonly kid: string,
    readonly context: CommandContext,
  ) {
    super();
  }
}
