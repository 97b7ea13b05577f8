import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import type { Clock } from '#warden/kernel';
import { CLOCK } from '#warden/platform';
import { ReviewJobAccess } from '../../review-job-access.js';
import { lockTokenHash } from '../../domain/lock-token.js';
import { RenewJobLockCommand } from './renew-job-lock.command.js';

@CommandHandler(RenewJobLockCommand)
export class RenewJobLockHandler implements ICommandHandler<RenewJobLockCommand> {
  constructor(
    private readonly access: ReviewJobAccess,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async execute(command: RenewJobLockCommand): Promise<{ expiresAt: string }> {
    const { orgId } = command.context;
    const now = this.clock.now();
    let expiresAt = '';
    await this.access.decide(
      orgId,
      command.jobId,
      command.moderator.permissions,
      ({ lockTimeoutSeconds }) => {
        expiresAt = new Date(now.getTime() + lockTimeoutSeconds * 1000).toISOString();
        return { type: 'RenewLock', moderatorId: command.moderator.userId, lockTokenHash: lockTokenHash(command.lockToken), expiresAt, now: now.toISOString() };
      },
      command.context,
    );
    return { expiresAt };
  }
}
