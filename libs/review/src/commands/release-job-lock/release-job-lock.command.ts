import { Command } from '@nestjs/cqrs';
import type { CommandContext } from '#warden/kernel';
import type { JobActor } from '../job-actor.js';

/** The holder gives the job back: it is claimable again at once, by anyone. */
export class ReleaseJobLockCommand extends Command<void> {
  constructor(
    readonly jobId: string,
    readonly lockToken: string,
    readonly moderator: JobActor,
    readonly context: CommandContext,
  ) {
    super();
  }
}
