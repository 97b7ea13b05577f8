import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import type { Clock } from '#warden/kernel';
import { CLOCK } from '#warden/platform';
import { AggregateStore } from '#warden/storage';
import { reviewJobDecider } from '../../domain/review-job.decider.js';
import { reviewJobStream } from '../../domain/review.streams.js';
import { ReviewJobAccess } from '../../review-job-access.js';
import { lockTokenHash } from '../claim-next-job/claim-next-job.handler.js';
import { RenewJobLockCommand } from './renew-job-lock.command.js';

@CommandHandler(RenewJobLockCommand)
export class RenewJobLockHandler implements ICommandHandler<RenewJobLockCommand> {
  constructor(
    private readonly aggregates: AggregateStore,
    private readonly access: ReviewJobAccess,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async execute(command: RenewJobLockCommand): Promise<{ expiresAt: string }> {
    const { orgId } = command.context;
    const { lockTimeoutSeconds } = await this.access.require(orgId, command.jobId, command.moderator.permissions);
    const now = this.clock.now();
    const expiresAt = new Date(now.getTime() + lockTimeoutSeconds * 1000).toISOString();
    await this.aggregates.handle(
      reviewJobStream(orgId, command.jobId),
      reviewJobDecider,
      { type: 'RenewLock', moderatorId: command.moderator.userId, lockTokenHash: lockTokenHash(command.lockToken), expiresAt, now: now.toISOString() },
      command.context,
    );
    return { expiresAt };
  }
}
