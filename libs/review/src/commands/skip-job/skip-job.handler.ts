import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import type { Clock } from '#warden/kernel';
import { CLOCK, WARDEN_CONFIG, type WardenConfig } from '#warden/platform';
import { ReviewJobAccess } from '../../review-job-access.js';
import { lockTokenHash } from '../../domain/lock-token.js';
import { SkipJobCommand } from './skip-job.command.js';

@CommandHandler(SkipJobCommand)
export class SkipJobHandler implements ICommandHandler<SkipJobCommand> {
  constructor(
    private readonly access: ReviewJobAccess,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(WARDEN_CONFIG) private readonly config: WardenConfig,
  ) {}

  async execute(command: SkipJobCommand): Promise<{ skipUntil: string }> {
    const { orgId } = command.context;
    const now = this.clock.now();
    const skipUntil = new Date(now.getTime() + this.config.reviewSkipSeconds * 1000).toISOString();
    await this.access.decide(
      orgId,
      command.jobId,
      command.moderator.permissions,
      () => ({ type: 'Skip', moderatorId: command.moderator.userId, lockTokenHash: lockTokenHash(command.lockToken), skipUntil, now: now.toISOString() }),
      command.context,
    );
    return { skipUntil };
  }
}
