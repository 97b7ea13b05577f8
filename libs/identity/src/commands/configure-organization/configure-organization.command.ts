import { Command } from '@nestjs/cqrs';
import type { CommandContext } from '#warden/kernel';

/** Brings an organization to the given name, creating it when missing (config as code). */
export class ConfigureOrganizationCommand extends Command<{ created: boolean; renamed: boolean }> {
  constructor(
    readonly orgId: string,
    readonly name: string,
    readonly context: CommandContext,
    /** Decide only: report what would change without appending. */
    readonly dryRun = false,
  ) {
    super();
  }
}
