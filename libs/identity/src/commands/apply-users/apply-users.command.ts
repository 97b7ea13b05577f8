import { Command } from '@nestjs/cqrs';
import type { CommandContext } from '#warden/kernel';
import type { DesiredUser } from '../../domain/users-plan.js';

export interface UsersApplyReport {
  readonly created: readonly string[];
  readonly updated: readonly string[];
  readonly disabled: readonly string[];
  /** Users the file does not name, kept because apply ran without --prune. */
  readonly leftAlone: readonly string[];
  /** Users the file names that are disabled: apply never enables anyone. */
  readonly stillDisabled: readonly string[];
}

/**
 * Brings an organization's dashboard users to a configuration file's `users:` section: missing
 * users are created invited (without a password: passwords never come from a file), roles are
 * set to the file's, and with `prune` users the file does not name are disabled.
 */
export class ApplyUsersCommand extends Command<UsersApplyReport> {
  constructor(
    readonly orgId: string,
    readonly users: readonly DesiredUser[],
    readonly options: { readonly prune: boolean; readonly dryRun: boolean },
    readonly context: CommandContext,
  ) {
    super();
  }
}
