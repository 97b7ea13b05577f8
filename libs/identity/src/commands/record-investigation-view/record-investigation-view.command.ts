import { Command } from '@nestjs/cqrs';
import type { CommandContext } from '#warden/kernel';

/**
 * Records in the organization's access audit that a console user looked an item or a user up in
 * Investigate (docs/console.md, "Investigate"): who looked at whom. The context's actor is the viewer.
 */
export class RecordInvestigationViewCommand extends Command<void> {
  constructor(
    readonly orgId: string,
    readonly userId: string,
    readonly viewed: { readonly kind: 'item' | 'user'; readonly typeId: string; readonly id: string },
    readonly context: CommandContext,
  ) {
    super();
  }
}
