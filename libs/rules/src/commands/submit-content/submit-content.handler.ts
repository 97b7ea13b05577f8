import { Inject } from '@nestjs/common';
import { CommandBus, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { BUILTIN_ACTION_IDS } from '#warden/catalog';
import type { EventStore } from '#warden/eventstore';
import { type AcceptedItem, itemVersionAt, SubmitItemsCommand } from '#warden/ingestion';
import { DomainError } from '#warden/kernel';
import { EVENT_STORE } from '#warden/storage';
import { CatalogSnapshots } from '../../evaluation/catalog-snapshots.js';
import { EvaluationRecorder } from '../../evaluation/evaluation-recorder.js';
import { evaluateSubmission } from '../../evaluation/evaluation-reactor.js';
import { ItemEvaluator } from '../../evaluation/item-evaluator.js';
import { SubmitContentCommand, type SubmitContentResult } from './submit-content.command.js';

const BUILTIN_NAMES: Record<string, string> = {
  [BUILTIN_ACTION_IDS.mrt]: 'Enqueue to manual review',
  [BUILTIN_ACTION_IDS.childSafety]: 'Enqueue to child safety',
};

/**
 * Records the item through ingestion's command (no image hashing on this endpoint) and, when
 * asked to be synchronous, evaluates the recorded submission itself, exactly as the worker would.
 */
@CommandHandler(SubmitContentCommand)
export class SubmitContentHandler implements ICommandHandler<SubmitContentCommand, SubmitContentResult> {
  constructor(
    private readonly commands: CommandBus,
    private readonly evaluator: ItemEvaluator,
    private readonly recorder: EvaluationRecorder,
    private readonly snapshots: CatalogSnapshots,
    @Inject(EVENT_STORE) private readonly events: EventStore,
  ) {}

  async execute({ input, context }: SubmitContentCommand): Promise<SubmitContentResult> {
    const snapshot = await this.snapshots.get(context.orgId);
    const userType = [...snapshot.itemTypes.values()].find((t) => t.kind === 'USER');
    const fallbackCreator = input.userId && userType ? { id: input.userId, typeId: userType.id } : null;
    let accepted: AcceptedItem[];
    try {
      accepted = await this.commands.execute(
        new SubmitItemsCommand([{ id: input.contentId, typeId: input.contentType, data: input.content }], context, {
          source: 'content',
          pointer: '/items',
          fallbackCreator,
        }),
      );
    } catch (error) {
      throw error instanceof DomainError ? legacyPointers(error) : error;
    }
    if (!input.sync) return { kind: 'accepted' };

    const submitted = await itemVersionAt(this.events, context.orgId, { id: input.contentId, typeId: input.contentType }, accepted[0]!.version);
    const evaluated = submitted ? await evaluateSubmission(this.evaluator, this.recorder, submitted) : undefined;
    return {
      kind: 'evaluated',
      evaluation: {
        contentId: input.contentId,
        rules: (evaluated?.rules ?? []).map((r) => ({ id: r.id, name: r.name, status: r.status, result: r.capped ? 'capped' : r.outcome })),
        actionsTriggered: (evaluated?.actions ?? []).map((a) => ({
          id: a.id,
          name: snapshot.actions.get(a.id)?.name ?? BUILTIN_NAMES[a.id] ?? a.id,
        })),
      },
    };
  }
}

/** Problems found by the items validator, pointed at the legacy request's own fields. */
function legacyPointers(error: DomainError): DomainError {
  const map = (pointer: string | undefined) =>
    pointer
      ?.replace(/^\/items\/0$/, '')
      .replace(/^\/items\/0\/data(?=\/|$)/, '/content')
      .replace(/^\/items\/0\/id$/, '/contentId')
      .replace(/^\/items\/0\/typeId$/, '/contentType');
  return new DomainError(
    error.kind,
    error.details.map((d) => ({ ...d, pointer: map(d.pointer) })),
    error.headers,
  );
}
