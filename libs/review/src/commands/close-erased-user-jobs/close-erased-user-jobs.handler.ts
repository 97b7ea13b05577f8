import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { JobAutoCloser } from '../../decisions/job-auto-closer.js';
import { CloseErasedUserJobsCommand } from './close-erased-user-jobs.command.js';

@CommandHandler(CloseErasedUserJobsCommand)
export class CloseErasedUserJobsHandler implements ICommandHandler<CloseErasedUserJobsCommand> {
  constructor(private readonly closer: JobAutoCloser) {}

  execute({ requestId, items, context, requested }: CloseErasedUserJobsCommand): Promise<number> {
    return this.closer.closeJobsOfErasedUser(items, requestId, context, requested);
  }
}
