import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { AggregateStore } from '#warden/storage';
import { secondFactorDecider } from '../../domain/second-factor.decider.js';
import { secondFactorStream } from '../../domain/identity.streams.js';
import { generateRecoveryCodes, hashRecoveryCode } from '../../domain/totp-code.js';
import { SecondFactorProofs } from '../../second-factor-proofs.js';
import { ConfirmSecondFactorCommand } from './confirm-second-factor.command.js';

@CommandHandler(ConfirmSecondFactorCommand)
export class ConfirmSecondFactorHandler implements ICommandHandler<ConfirmSecondFactorCommand> {
  constructor(
    private readonly aggregates: AggregateStore,
    private readonly proofs: SecondFactorProofs,
  ) {}

  async execute(command: ConfirmSecondFactorCommand): Promise<{ recoveryCodes: string[] }> {
    const { state } = await this.proofs.load(command.orgId, command.userId);
    const enrollmentId = state.enrollmentId ?? '';
    const recoveryCodes = generateRecoveryCodes();
    await this.aggregates.handle(
      secondFactorStream(command.orgId, command.userId),
      secondFactorDecider,
      {
        type: 'ConfirmEnrollment',
        enrollmentId,
        step: this.proofs.stepOf(state, command.code),
        recoveryCodeHashes: recoveryCodes.map((code) => hashRecoveryCode(enrollmentId, code)),
      },
      command.context,
    );
    return { recoveryCodes };
  }
}
