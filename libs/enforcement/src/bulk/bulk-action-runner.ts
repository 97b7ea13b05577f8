import { Inject, Injectable } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { itemStream } from '#warden/ingestion/contracts';
import { type Clock, type CommandContext, deterministicId, DomainError, type RecordedOf } from '#warden/kernel';
import { CLOCK } from '#warden/platform';
import { AggregateStore } from '#warden/storage';
import { ExecuteActionCommand } from '../commands/execute-action/execute-action.command.js';
import { bulkActionDecider, type BulkActionCounts, chunkCount, chunkItems } from '../domain/bulk-action.decider.js';
import type { BulkActionChunkExecuted, BulkActionItem, BulkActionRequested } from '../domain/bulk-action.events.js';
import { bulkExecutionId } from '../domain/bulk-action.streams.js';
import { BUILTIN_IDS } from '../execution-catalog.js';

/** Items of a chunk executed at once: enough to keep the store's group commit busy, few enough to leave room for the rest of the worker. */
const CONCURRENCY = 25;

type Outcome = keyof BulkActionCounts;

/**
 * Works a bulk operation through, one chunk per event of its stream (docs/bulk-actions.md, "The
 * bulk operation"): after BulkActionRequested the first chunk, after each BulkActionChunkExecuted
 * the next, until the last or a cancellation. A chunk's outcome is recorded on the operation's
 * stream, which is the progress the reactor resumes from after a crash: the chunk under way is
 * executed again, and its items, whose executions are named by what they mean, act on nothing twice.
 */
@Injectable()
export class BulkActionRunner {
  constructor(
    private readonly aggregates: AggregateStore,
    private readonly commands: CommandBus,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async continueAfter(event: RecordedOf<BulkActionRequested | BulkActionChunkExecuted>): Promise<void> {
    const next = event.type === 'BulkActionRequested' ? 0 : event.data.chunk + 1;
    const state = await this.aggregates.state(event.streamName, bulkActionDecider);
    const { request } = state;
    // Cancelled, completed, or this chunk recorded already (a redelivery after a crash): nothing to do.
    if (!request || state.status !== 'RUNNING' || state.chunksDone !== next || next >= chunkCount(request)) return;
    const orgId = event.metadata.orgId;
    // The executions are the requester's: the audit shows who acted.
    const context: CommandContext = { orgId, correlationId: event.metadata.correlationId, causationId: event.id, actor: request.requestedBy };
    const counts = { executed: 0, alreadyActioned: 0, missing: 0, failed: 0 };
    const items = chunkItems(request, next);
    for (let i = 0; i < items.length; i += CONCURRENCY) {
      const outcomes = await Promise.all(items.slice(i, i + CONCURRENCY).map((item) => this.executeOne(request, item, context)));
      for (const outcome of outcomes) counts[outcome]++;
    }
    await this.aggregates.handle(
      event.streamName,
      bulkActionDecider,
      { type: 'RecordBulkActionChunk', chunk: next, ...counts, now: this.clock.now().toISOString() },
      { ...context, actor: 'enforcement' },
      { eventIds: (_, index) => deterministicId('bulk-action-chunk', event.streamName, String(next), String(index)) },
    );
  }

  private async executeOne(
    request: Pick<BulkActionRequested['data'], 'actionId' | 'policyIds' | 'reason' | 'requester'>,
    item: BulkActionItem,
    context: CommandContext,
  ): Promise<Outcome> {
    // Only items stored in the organization are acted on: another organization's ids are missing here.
    if (!(await this.aggregates.exists(itemStream(context.orgId, item.typeId, item.id)))) return 'missing';
    const enqueue = BUILTIN_IDS.has(request.actionId);
    const body = {
      actionId: request.actionId,
      itemId: item.id,
      itemTypeId: item.typeId,
      policyIds: [...request.policyIds],
      // The item's own open jobs close as when the platform executes the action on it (docs/enforcement.md,
      // "`POST /api/v1/actions`: actions the platform executes"); an enqueue asks for review instead.
      reportedItems: enqueue ? [] : [{ id: item.id, typeId: item.typeId }],
    };
    const executionId = bulkExecutionId(context.orgId, request.actionId, request.policyIds, request.reason, item);
    // The callback names the manager and their reason (docs/bulk-actions.md, "What the callbacks carry");
    // a request recorded before its requester was names no one, as then.
    const { requester } = request;
    const moderator = requester ? { userId: requester.userId, email: requester.email, reason: request.reason } : undefined;
    try {
      const { created } = await this.commands.execute(new ExecuteActionCommand(body, context, { executionId, ...(moderator && { moderator }) }));
      return created ? 'executed' : 'alreadyActioned';
    } catch (error) {
      // The catalog changed since the request (the action or a policy archived): this item is refused, the others go on.
      if (error instanceof DomainError && error.kind === 'invalid-user-input') return 'failed';
      throw error;
    }
  }
}
