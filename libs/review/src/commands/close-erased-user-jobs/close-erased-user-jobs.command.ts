import { Command } from '@nestjs/cqrs';
import type { CommandContext } from '#warden/kernel';

/**
 * Closes the open review jobs of the items an erased user submitted (their user item among them)
 * that were opened by the request (`requested`: its log position and time) with AUTOMATIC_CLOSE,
 * reason USER_ERASED; answers how many it closed. Sent by a GDPR deletion; the same `requestId`
 * again closes nothing more.
 */
export class CloseErasedUserJobsCommand extends Command<number> {
  constructor(
    readonly requestId: string,
    readonly items: ReadonlyArray<{ readonly id: string; readonly typeId: string }>,
    readonly context: CommandContext,
    readonly requested: { readonly position: number; readonly at: string },
  ) {
    super();
  }
}
