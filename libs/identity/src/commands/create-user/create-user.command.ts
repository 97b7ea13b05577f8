import { Command } from '@nestjs/cqrs';
import type { CommandContext } from '#warden/kernel';

export interface CreateUserOptions {
  /** Checked (password-policy.ts: length, no control characters, not common, repetitive or built on the address) and stored as a scrypt hash. */
  readonly password?: string;
  /** `invited` users have no password until they accept an invitation; default `active`. */
  readonly state?: 'active' | 'invited';
}

/**
 * Creates a dashboard user; the email must be new to the whole deployment (400 on /email), except
 * for an invited user: where another organization holds the address, it waits as its
 * organization's invitee and the conflict is settled at acceptance (AcceptInvitationCommand).
 */
export class CreateUserCommand extends Command<{ userId: string }> {
  constructor(
    readonly orgId: string,
    readonly email: string,
    readonly roles: readonly string[],
    readonly context: CommandContext,
    readonly options: CreateUserOptions = {},
  ) {
    super();
  }
}
