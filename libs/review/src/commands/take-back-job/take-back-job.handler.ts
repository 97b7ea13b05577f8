import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import type { Clock } from '#warden/kernel';
import { CLOCK } from '#warden/platform';
import { ReviewJobAccess } from '../../review-job-access.js';
import { TakeBackJobCommand } from './take-back-job.command.js';

@CommandHandler(TakeBackJobCommand)
export class TakeBackJobHandler implements ICommandHandler<TakeBackJobCommand> {
  constructor(
    private readonly access: ReviewJobAccess,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async execute(command: TakeBackJobCommand): Promise<void> {
    const { orgId } = command.context;
    await this.access.decide(
      orgId,
      command.jobId,
      command.manager.permissions,
      () => ({ type: 'ManagerRelease', managerId: command.manager.userId, now: this.clock.now().toISOString() }),
      command.context,
      { retries: 3 },
    );
  }
}
