import { Command } from '@nestjs/cqrs';
import type { CommandContext } from '#warden/kernel';

/**
 * The outcome of the second step of a password login: `not-enrolled` (no active factor, the
 * password was enough), `passed` (the code or recovery code was valid and is now spent),
 * `missing` (the user has a factor and sent neither), `wrong` (invalid, or already used).
 */
export type SecondFactorCheck = 'not-enrolled' | 'passed' | 'missing' | 'wrong';

/** Called by the login once the password is verified. A valid code is spent (a command, not a query). */
export class CheckSecondFactorCommand extends Command<SecondFactorCheck> {
  constructor(
    readonly orgId: string,
    readonly userId: string,
    readonly totp: string | undefined,
    readonly recoveryCode: string | undefined,
    readonly context: CommandContext,
  ) {
    super();
  }
}
