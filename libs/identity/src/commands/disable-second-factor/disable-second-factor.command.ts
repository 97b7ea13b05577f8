import { Command } from '@nestjs/cqrs';
import type { CommandContext } from '#warden/kernel';
import type { SecondFactorInput } from '../../second-factor-proofs.js';

export class DisableSecondFactorCommand extends Command<void> {
  constructor(
    readonly orgId: string,
    readonly userId: string,
    readonly input: SecondFactorInput,
    readonly context: CommandContext,
  ) {
    super();
  }
}
