import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler, QueryBus } from '@nestjs/cqrs';
import { GetEverEntitiesQuery, GetLiveEntitiesQuery, type InputCatalog, namedTypeIds, rejectionOf } from '#warden/catalog';
import { userSubject } from '#warden/kernel';
import { WARDEN_CONFIG, type WardenConfig } from '#warden/platform';
import { AggregateStore } from '#warden/storage';
import { checkAppeal } from '../../domain/appeal-input.js';
import { appealDecider } from '../../domain/appeal.decider.js';
import { appealStream } from '../../domain/appeal.streams.js';
import { SubmitAppealCommand } from './submit-appeal.command.js';

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
  ) {}

  /**
   * The catalog as the appeal needs it; an item type applied moments ago is waited for. Policies
   * archived since count: `violatingPolicies` are those the action's callback named (docs/review.md,
   * "Appeals"), and a policy changed after the action must not lose the user's appeal.
   */
  private async catalog(orgId: string, body: Record<string, unknown>): Promise<InputCatalog> {
    const [types, policies] = await Promise.all([
      this.queries.execute(new GetLiveEntitiesQuery(orgId, 'itemType', namedTypeIds(body['appealedBy'], body['actionedItem'], body['additionalItems']))),
      this.queries.execute(new GetEverEntitiesQuery(orgId, 'policy')),
    ]);
    return { itemTypes: new Map(types.map((t) => [t.id, t] as const)), policyIds: new Set(policies.map((p) => p.id)) };
  }

  async execute(command: SubmitAppealCommand): Promise<void> {
    const { context, body } = command;
    const catalog = await this.catalog(context.orgId, body);
    const checked = checkAppeal(body, catalog, { maxItemBytes: this.config.maxItemBytes, maxItemsPerList: this.config.maxItemsPerRequest });
    if (!checked.ok) throw rejectionOf(checked);
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
