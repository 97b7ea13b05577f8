import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler, QueryBus } from '@nestjs/cqrs';
import { GetLiveEntitiesQuery, type ItemTypeDefinition } from '#warden/catalog';
import { invalidInput, partTooLarge, userSubject } from '#warden/kernel';
import { WARDEN_CONFIG, type WardenConfig } from '#warden/platform';
import { AggregateStore, ProjectionHost } from '#warden/storage';
import { type AppealCatalog, checkAppeal } from '../../domain/appeal-input.js';
import { appealDecider } from '../../domain/appeal.decider.js';
import { appealStream } from '../../domain/appeal.streams.js';
import { SubmitAppealCommand } from './submit-appeal.command.js';

/** Item type ids an appeal names: the appellant's, the actioned item's, the context items'. */
function namedTypeIds(body: Record<string, unknown>): string[] {
  const typeIdOf = (v: unknown) => (typeof v === 'object' && v !== null ? (v as { typeId?: unknown }).typeId : undefined);
  const extra = Array.isArray(body['additionalItems']) ? body['additionalItems'] : [];
  return [body['appealedBy'], body['actionedItem'], ...extra].map(typeIdOf).filter((t): t is string => typeof t === 'string');
}

/**
 * Checks the whole appeal, then decides it on the stream of its `appealId`: the first appeal
 * under an id is recorded, the same id again (whatever its body) records nothing and is answered
 * 204 like the first.
 */
@CommandHandler(SubmitAppealCommand)
export class SubmitAppealHandler implements ICommandHandler<SubmitAppealCommand> {
  constructor(
    private readonly aggregates: AggregateStore,
    private readonly queries: QueryBus,
    @Inject(WARDEN_CONFIG) private readonly config: WardenConfig,
    @Inject(ProjectionHost) private readonly projections: ProjectionHost,
  ) {}

  private async catalog(orgId: string): Promise<AppealCatalog> {
    const [types, policies] = await Promise.all([
      this.queries.execute(new GetLiveEntitiesQuery(orgId, 'itemType')),
      this.queries.execute(new GetLiveEntitiesQuery(orgId, 'policy')),
    ]);
    return { itemTypes: new Map(types.map((t: ItemTypeDefinition) => [t.id, t] as const)), policyIds: new Set(policies.map((p) => p.id)) };
  }

  async execute(command: SubmitAppealCommand): Promise<void> {
    const { context, body } = command;
    let catalog = await this.catalog(context.orgId);
    // An item type applied moments ago may not be projected yet.
    if (namedTypeIds(body).some((t) => !catalog.itemTypes.has(t))) {
      await this.projections.catchUp('catalog');
      catalog = await this.catalog(context.orgId);
    }
    const checked = checkAppeal(body, catalog, { maxItemBytes: this.config.maxItemBytes, maxItemsPerList: this.config.maxItemsPerRequest });
    if (!checked.ok) {
      if (checked.tooLarge.length > 0) throw partTooLarge(...checked.tooLarge);
      throw invalidInput(...checked.problems);
    }
    const input = checked.input;
    await this.aggregates.handle(
      appealStream(context.orgId, input.appealId),
      appealDecider,
      {
        type: 'SubmitAppeal',
        appeal: {
          appealId: input.appealId,
          appealedBy: input.appealedBy,
          appealedAt: input.appealedAt,
          actionedItem: { id: input.actionedItem.id, typeId: input.actionedItem.typeId },
          actionedItemData: input.actionedItem.data,
          actionsTaken: input.actionsTaken,
          appealReason: input.appealReason,
          violatingPolicyIds: input.violatingPolicyIds,
          additionalItems: input.additionalItems,
          subject: userSubject(input.appealedBy),
        },
      },
      context,
    );
  }
}
