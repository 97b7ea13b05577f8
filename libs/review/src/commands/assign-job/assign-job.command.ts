import { Command } from '@nestjs/cqrs';
import type { CommandContext } from '#warden/kernel';
import type { JobActor } from '../job-actor.js';

/** A manager reserves a job for one moderator (any lock held is ended): only they can claim it. */
export class AssignJobCommand extends Command<void> {
  constructor(
    readonly jobId: string,
    readonly moderatorId: string,
    readonly manager: JobActor,
    readonly context: CommandContext,
  ) {
    super();
  }
}
