import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { rateLimited } from '#warden/kernel';
import { AggregateStore } from '#warden/storage';
import { secondFactorDecider } from '../../domain/second-factor.decider.js';
import { secondFactorStream } from '../../domain/identity.streams.js';
import { LoginThrottle } from '../../login-throttle.js';
import { SecondFactorProofs } from '../../second-factor-proofs.js';
import { DisableSecondFactorCommand } from './disable-second-factor.command.js';

@CommandHandler(DisableSecondFactorCommand)
export class DisableSecondFactorHandler implements ICommandHandler<DisableSecondFactorCommand> {
  constructor(
    private readonly aggregates: AggregateStore,
    private readonly proofs: SecondFactorProofs,
    private readonly throttle: LoginThrottle,
  ) {}

  /**
   * Someone holding a stolen session could otherwise guess codes here as fast as the request rate
   * allows: proofs count like sign-ins, 10 wrong ones in 15 minutes per user, taken back when right.
   */
  async execute(command: DisableSecondFactorCommand): Promise<void> {
    const keys = [`second-factor:${command.orgId}:${command.userId}`];
    const attempt = await this.throttle.begin(keys);
    if (attempt.id === null) throw rateLimited(attempt.retryAfter, 'Too many wrong second-factor proofs for this user (10 in 15 minutes)');
    const { state } = await this.proofs.load(command.orgId, command.userId);
    await this.aggregates.handle(
      secondFactorStream(command.orgId, command.userId),
      secondFactorDecider,
      { type: 'Disable', proof: this.proofs.proofOf(state, command.input) },
      command.context,
    );
    await this.throttle.succeeded(keys, attempt.id);
  }
}
