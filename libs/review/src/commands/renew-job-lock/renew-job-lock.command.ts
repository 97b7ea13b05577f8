import { Command } from '@nestjs/cqrs';
import type { CommandContext } from '#warden/kernel';
import type { JobActor } from '../job-actor.js';

/** Heartbeat: the holder's lock runs for the queue's lockTimeoutSeconds from now. */
export class RenewJobLockCommand extends Command<{ expiresAt: string }> {
  constructor(
    readonly jobId: string,
    readonly lockToken: string,
    readonly moderator: JobActor,
    readonly context: CommandContext,
  ) {
    super();
  }
}
