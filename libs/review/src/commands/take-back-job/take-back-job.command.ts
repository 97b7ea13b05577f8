import { Command } from '@nestjs/cqrs';
import type { CommandContext } from '#warden/kernel';
import type { JobActor } from '../job-actor.js';

/** A manager takes a job away from its holder (or assignee): it is claimable again by anyone. */
export class TakeBackJobCommand extends Command<void> {
  constructor(
    readonly jobId: string,
    readonly manager: JobActor,
    readonly context: CommandContext,
  ) {
    super();
  }
}
