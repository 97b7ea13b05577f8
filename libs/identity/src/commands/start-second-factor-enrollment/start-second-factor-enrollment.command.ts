import { Command } from '@nestjs/cqrs';
import type { CommandContext } from '#warden/kernel';

/** The secret of a new enrollment, shown once so the user can add it to an authenticator app. */
export interface SecondFactorEnrollment {
  readonly otpauthUri: string;
  /** Base32, for entering by hand. */
  readonly secret: string;
}

export class StartSecondFactorEnrollmentCommand extends Command<SecondFactorEnrollment> {
  constructor(
    readonly orgId: string,
    readonly userId: string,
    /** Shown in the authenticator app next to the issuer (the user's email). */
    readonly accountName: string,
    readonly context: CommandContext,
  ) {
    super();
  }
}
