import { Command } from '@nestjs/cqrs';
import type { CommandContext } from '#warden/kernel';

export class ConfirmSecondFactorCommand extends Command<{ recoveryCodes: string[] }> {
  constructor(
    readonly orgId: string,
    readonly userId: string,
    readonly code: string,
    readonly context: CommandContext,
  ) {
    super();
  }
}
