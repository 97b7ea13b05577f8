import { Command } from '@nestjs/cqrs';
import type { CommandContext } from '#warden/kernel';
import type { Permission } from '#warden/identity/contracts';

export interface ClaimedJob {
  readonly jobId: string;
  readonly lock: { readonly token: string; readonly expiresAt: string };
}

/** Takes the next job of a queue under an exclusive lock; null when the queue has nothing to offer this moderator. */
export class ClaimNextJobCommand extends Command<ClaimedJob | null> {
  constructor(
    readonly queueId: string,
    readonly moderator: { readonly userId: string; readonly permissions: readonly Permission[] },
    readonly context: CommandContext,
  ) {
    super();
  }
}
