import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { AggregateStore, KEYRING, type Keyring } from '#warden/storage';
import { secondFactorDecider } from '../../domain/second-factor.decider.js';
import { secondFactorStream } from '../../domain/identity.streams.js';
import { generateTotpSecret, totpUri } from '../../domain/totp-code.js';
import { type SecondFactorEnrollment, StartSecondFactorEnrollmentCommand } from './start-second-factor-enrollment.command.js';

export const TOTP_ISSUER = 'Warden';

@CommandHandler(StartSecondFactorEnrollmentCommand)
export class StartSecondFactorEnrollmentHandler implements ICommandHandler<StartSecondFactorEnrollmentCommand> {
  constructor(
    private readonly aggregates: AggregateStore,
    @Inject(KEYRING) private readonly keyring: Keyring,
  ) {}

  async execute(command: StartSecondFactorEnrollmentCommand): Promise<SecondFactorEnrollment> {
    const secret = generateTotpSecret();
    await this.aggregates.handle(
      secondFactorStream(command.orgId, command.userId),
      secondFactorDecider,
      {
        type: 'StartEnrollment',
        orgId: command.orgId,
        userId: command.userId,
        enrollmentId: this.aggregates.newId('tfa_'),
        secret: this.keyring.seal(secret),
      },
      command.context,
    );
    return { otpauthUri: totpUri(secret, TOTP_ISSUER, command.accountName), secret };
  }
}
