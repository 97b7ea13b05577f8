import { Command } from '@nestjs/cqrs';
import type { CommandContext } from '#warden/kernel';

export class CreateOrganizationCommand extends Command<{ orgId: string; name: string }> {
  constructor(
    readonly orgId: string,
    readonly name: string,
    readonly context: CommandContext,
  ) {
    super();
  }
}
