import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { type Clock, idProblem, invalidField } from '#warden/kernel';
import { CLOCK } from '#warden/platform';
import { AggregateStore } from '#warden/storage';
import { bulkActionView, type BulkActionView } from '../../bulk/bulk-action-view.js';
import { bulkActionDecider } from '../../domain/bulk-action.decider.js';
import { bulkActionStream } from '../../domain/bulk-action.streams.js';
import { CancelBulkActionCommand } from './cancel-bulk-action.command.js';

@CommandHandler(CancelBulkActionCommand)
export class CancelBulkActionHandler implements ICommandHandler<CancelBulkActionCommand> {
  constructor(
    private readonly aggregates: AggregateStore,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async execute(command: CancelBulkActionCommand): Promise<BulkActionView> {
    const { bulkActionId, context } = command;
    const issue = idProblem(bulkActionId);
    if (issue) throw invalidField('/bulkActionId', issue);
    // Another organization's operation is another stream: unknown here, as is one never requested (the decider's 404).
    const stream = bulkActionStream(context.orgId, bulkActionId);
    const handled = await this.aggregates.handle(stream, bulkActionDecider, { type: 'CancelBulkAction', now: this.clock.now().toISOString() }, context);
    return bulkActionView(handled.state)!;
  }
}
