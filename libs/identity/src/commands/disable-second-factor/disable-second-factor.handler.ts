import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { AggregateStore } from '#warden/storage';
import { secondFactorDecider } from '../../domain/second-factor.decider.js';
import { secondFactorStream } from '../../domain/identity.streams.js';
import { SecondFactorProofs } from '../../second-factor-proofs.js';
import { DisableSecondFactorCommand } from './disable-second-factor.command.js';

@CommandHandler(DisableSecondFactorCommand)
export class DisableSecondFactorHandler implements ICommandHandler<DisableSecondFactorCommand> {
  constructor(
    private readonly aggregates: AggregateStore,
    private readonly proofs: SecondFactorProofs,
  ) {}

  async execute(command: DisableSecondFactorCommand): Promise<void> {
    const { state } = await this.proofs.load(command.orgId, command.userId);
    await this.aggregates.handle(
      secondFactorStream(command.orgId, command.userId),
      secondFactorDecider,
      { type: 'Disable', proof: this.proofs.proofOf(state, command.input) },
      command.context,
    );
  }
}
