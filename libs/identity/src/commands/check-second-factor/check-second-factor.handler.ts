import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { DomainError } from '#warden/kernel';
import { AggregateStore } from '#warden/storage';
import { secondFactorDecider } from '../../domain/second-factor.decider.js';
import { secondFactorStream } from '../../domain/identity.streams.js';
import { ReadOnlySessions } from '../../read-only-sessions.js';
import { SecondFactorProofs } from '../../second-factor-proofs.js';
import { CheckSecondFactorCommand, type SecondFactorCheck } from './check-second-factor.command.js';

@CommandHandler(CheckSecondFactorCommand)
export class CheckSecondFactorHandler implements ICommandHandler<CheckSecondFactorCommand> {
  constructor(
    private readonly aggregates: AggregateStore,
    private readonly proofs: SecondFactorProofs,
    private readonly readOnly: ReadOnlySessions,
  ) {}

  async execute(command: CheckSecondFactorCommand): Promise<SecondFactorCheck> {
    const stream = secondFactorStream(command.orgId, command.userId);
    const loaded = (await this.proofs.load(command.orgId, command.userId)).state;
    const state = this.readOnly.active ? this.readOnly.state(stream, loaded) : loaded;
    if (state.status !== 'active') return 'not-enrolled';
    const proof = this.proofs.proofOf(state, { code: command.totp, recoveryCode: command.recoveryCode });
    if (proof === null) return 'missing';
    try {
      // Spending the step or code on the write side is what refuses a replay in another process.
      // On a read-only server the step or code is spent in memory (ReadOnlySessions), not in the log.
      if (this.readOnly.active) this.readOnly.decide(stream, secondFactorDecider, loaded, { type: 'Verify', proof });
      else await this.aggregates.handle(stream, secondFactorDecider, { type: 'Verify', proof }, command.context);
      return 'passed';
    } catch (error) {
      if (error instanceof DomainError && error.kind === 'invalid-user-input') return 'wrong';
      throw error;
    }
  }
}
