import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler, QueryBus } from '@nestjs/cqrs';
import type { Clock } from '#warden/kernel';
import { CLOCK, WARDEN_CONFIG, type WardenConfig } from '#warden/platform';
import { AggregateStore } from '#warden/storage';
import { checkedBulkAction } from '../../bulk/bulk-action-check.js';
import { bulkActionView, type BulkActionView } from '../../bulk/bulk-action-view.js';
import { bulkActionDecider } from '../../domain/bulk-action.decider.js';
import { bulkActionStream } from '../../domain/bulk-action.streams.js';
import { RequestBulkActionCommand } from './request-bulk-action.command.js';

/** Items per chunk: one progress step, and what a crash makes the reactor execute again (acting on nothing twice). */
export const BULK_CHUNK_SIZE = 100;

@CommandHandler(RequestBulkActionCommand)
export class RequestBulkActionHandler implements ICommandHandler<RequestBulkActionCommand> {
  constructor(
    private readonly aggregates: AggregateStore,
    private readonly queries: QueryBus,
    @Inject(WARDEN_CONFIG) private readonly config: WardenConfig,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async execute(command: RequestBulkActionCommand): Promise<BulkActionView> {
    const { context } = command;
    const input = await checkedBulkAction(this.queries, context.orgId, command.body, this.config.maxItemsPerRequest);
    const bulkActionId = this.aggregates.newId('blk_');
    const handled = await this.aggregates.handle(
      bulkActionStream(context.orgId, bulkActionId),
      bulkActionDecider,
      {
        type: 'RequestBulkAction',
        bulkActionId,
        actionId: input.action.id,
        policyIds: input.policies.map((p) => p.id),
        reason: input.reason,
        items: input.items,
        chunkSize: BULK_CHUNK_SIZE,
        requestedBy: context.actor,
        requester: { userId: command.requester.userId, email: command.requester.email },
        now: this.clock.now().toISOString(),
      },
      context,
    );
    return bulkActionView(handled.state)!;
  }
}
