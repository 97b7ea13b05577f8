import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler, QueryBus } from '@nestjs/cqrs';
import type { EventStore } from '#warden/eventstore';
import { latestSubmission } from '#warden/ingestion';
import { type Clock, invalidInput } from '#warden/kernel';
import { CLOCK, WARDEN_CONFIG, type WardenConfig } from '#warden/platform';
import { AggregateStore, EVENT_STORE } from '#warden/storage';
import { actionExecutionDecider } from '../../domain/action-execution.decider.js';
import { actionExecutionStream } from '../../domain/action-execution.streams.js';
import { checkExecuteAction } from '../../domain/execute-action-input.js';
import { readExecutionCatalog } from '../../execution-catalog.js';
import { ExecuteActionCommand, type ExecuteActionResult } from './execute-action.command.js';

/**
 * Checks the whole request, resolves the user concerned, and records the execution on a new
 * stream of its own (a service-assigned id): the same request twice is two executions, unless
 * the client sent an Idempotency-Key (the route's interceptor answers the repeat), or the caller
 * named the execution (a bulk action's item: then a repeat executes nothing).
 */
@CommandHandler(ExecuteActionCommand)
export class ExecuteActionHandler implements ICommandHandler<ExecuteActionCommand> {
  constructor(
    private readonly aggregates: AggregateStore,
    private readonly queries: QueryBus,
    @Inject(WARDEN_CONFIG) private readonly config: WardenConfig,
    @Inject(EVENT_STORE) private readonly events: EventStore,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async execute(command: ExecuteActionCommand): Promise<ExecuteActionResult> {
    const { context, body } = command;
    const catalog = await readExecutionCatalog(this.queries, context.orgId, body);
    const checked = checkExecuteAction(body, catalog, { maxItemsPerList: this.config.maxItemsPerRequest });
    if (!checked.ok) throw invalidInput(...checked.problems);
    const { action, item, policies, reportedItems, actorId } = checked.input;
    const identifier = { id: item.id, typeId: item.itemType.id };
    const latest = (await latestSubmission(this.events, context.orgId, identifier)) ?? { version: 0, creator: null };
    const executionId = command.options.executionId ?? this.aggregates.newId('exe_');
    const handled = await this.aggregates.handle(
      actionExecutionStream(context.orgId, executionId),
      actionExecutionDecider,
      {
        type: 'ExecuteAction',
        orgId: context.orgId,
        executionId,
        action,
        item: { ...identifier, typeName: item.itemType.name },
        version: latest.version,
        policies: policies.map((p) => ({ id: p.id, name: p.name, penalty: p.penalty })),
        reportedItems,
        // A USER item is its own user, known to Warden or not.
        creator: item.itemType.kind === 'USER' ? identifier : latest.creator,
        actorId,
        ...(command.options.moderator && { moderator: command.options.moderator }),
        now: this.clock.now().toISOString(),
      },
      context,
    );
    return { executionId, created: handled.events.length > 0 };
  }
}
