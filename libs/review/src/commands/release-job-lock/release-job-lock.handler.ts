import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import type { Clock } from '#warden/kernel';
import { CLOCK } from '#warden/platform';
import { ReviewJobAccess } from '../../review-job-access.js';
import { lockTokenHash } from '../../domain/lock-token.js';
import { ReleaseJobLockCommand } from './release-job-lock.command.js';

@CommandHandler(ReleaseJobLockCommand)
export class ReleaseJobLockHandler implements ICommandHandler<ReleaseJobLockCommand> {
  constructor(
    private readonly access: ReviewJobAccess,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async execute(command: ReleaseJobLockCommand): Promise<void> {
    const { orgId } = command.context;
    await this.access.decide(
      orgId,
      command.jobId,
      command.moderator.permissions,
      () => ({
        type: 'ReleaseLock',
        moderatorId: command.moderator.userId,
        lockTokenHash: lockTokenHash(command.lockToken),
        now: this.clock.now().toISOString(),
      }),
      command.context,
    );
  }
}
