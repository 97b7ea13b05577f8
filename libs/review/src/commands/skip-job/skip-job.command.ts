import { Command } from '@nestjs/cqrs';
import type { CommandContext } from '#warden/kernel';
import type { JobActor } from '../job-actor.js';

/** The holder gives the job back and is not offered it again for WARDEN_REVIEW_SKIP_SECONDS. */
export class SkipJobCommand extends Command<{ skipUntil: string }> {
  constructor(
    readonly jobId: string,
    readonly lockToken: string,
    readonly moderator: JobActor,
    readonly context: CommandContext,
  ) {
    super();
  }
}
