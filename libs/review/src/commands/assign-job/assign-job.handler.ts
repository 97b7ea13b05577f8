import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler, QueryBus } from '@nestjs/cqrs';
import { GetUserQuery, type UserView } from '#warden/identity';
import { type Clock, DomainError, invalidField } from '#warden/kernel';
import { CLOCK } from '#warden/platform';
import { queueVisibleTo } from '../../contracts.js';
import { ReviewJobAccess } from '../../review-job-access.js';
import { AssignJobCommand } from './assign-job.command.js';

@CommandHandler(AssignJobCommand)
export class AssignJobHandler implements ICommandHandler<AssignJobCommand> {
  constructor(
    private readonly access: ReviewJobAccess,
    private readonly queries: QueryBus,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async execute(command: AssignJobCommand): Promise<void> {
    const { orgId } = command.context;
    const user = await this.assignee(orgId, command.moderatorId);
    await this.access.decide(
      orgId,
      command.jobId,
      command.manager.permissions,
      ({ state }) => {
        const mayDecide =
          user !== null && user.state === 'active' && user.permissions.includes('DECIDE_MRT') && queueVisibleTo(user.permissions, state.queueId);
        if (!mayDecide) {
          throw invalidField('/userId', `${command.moderatorId} is not an active user of this organization who may decide jobs of this queue`);
        }
        return { type: 'Assign', moderatorId: command.moderatorId, managerId: command.manager.userId, now: this.clock.now().toISOString() };
      },
      command.context,
      { retries: 3 },
    );
  }

  private async assignee(orgId: string, userId: string): Promise<UserView | null> {
    try {
      return await this.queries.execute(new GetUserQuery(orgId, userId));
    } catch (error) {
      if (error instanceof DomainError && error.kind === 'not-found') return null;
      throw error;
    }
  }
}
