import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler, QueryBus } from '@nestjs/cqrs';
import { GetLiveEntitiesQuery, validateItem, type ItemTypeDefinition } from '#warden/catalog';
import { type ErrorDetail, invalidInput } from '#warden/kernel';
import { WARDEN_CONFIG, type WardenConfig } from '#warden/platform';
import { AggregateStore, ProjectionHost } from '#warden/storage';
import { resolveCreator } from '../../domain/creator.js';
import { itemDecider } from '../../domain/item.decider.js';
import { itemStream } from '../../domain/item.streams.js';
import { type AcceptedItem, SubmitItemsCommand } from './submit-items.command.js';

interface ValidItem {
  id: string;
  typeId: string;
  data: { [field: string]: unknown };
  typeVersion?: string;
  typeSchemaVariant?: 'original' | 'partial';
}

@CommandHandler(SubmitItemsCommand)
export class SubmitItemsHandler implements ICommandHandler<SubmitItemsCommand> {
  constructor(
    private readonly aggregates: AggregateStore,
    @Inject(WARDEN_CONFIG) private readonly config: WardenConfig,
    private readonly queries: QueryBus,
    @Inject(ProjectionHost) private readonly projections: ProjectionHost,
  ) {}

  private async itemTypes(orgId: string): Promise<Map<string, ItemTypeDefinition>> {
    return new Map((await this.queries.execute(new GetLiveEntitiesQuery(orgId, 'itemType'))).map((t) => [t.id, t] as const));
  }

  async execute(command: SubmitItemsCommand): Promise<AcceptedItem[]> {
    const { pointer } = command.options;
    if (command.items.length > this.config.maxItemsPerRequest) {
      throw invalidInput({
        title: 'Invalid request',
        detail: `at most ${this.config.maxItemsPerRequest} items per request (got ${command.items.length})`,
        pointer,
      });
    }
    let types = await this.itemTypes(command.context.orgId);
    // An item type applied moments ago may not be projected yet (or no worker runs here):
    // catch the catalog up before calling a type unknown.
    if (command.items.some((i: unknown) => !types.has((i as { typeId?: string } | null)?.typeId ?? ''))) {
      await this.projections.catchUp('catalog');
      types = await this.itemTypes(command.context.orgId);
    }
    const known = new Set(types.keys());
    const problems: ErrorDetail[] = [];
    command.items.forEach((item, i) => {
      const at = `${pointer}/${i}`;
      if (typeof item !== 'object' || item === null || Array.isArray(item)) {
        problems.push({ title: 'Invalid item', detail: 'expected an object', pointer: at });
        return;
      }
      const typeId = (item as { typeId?: unknown }).typeId;
      const itemType = typeof typeId === 'string' ? types.get(typeId) : undefined;
      for (const p of validateItem(item, itemType, { pointer: at, knownItemTypeIds: known })) {
        problems.push({ title: 'Invalid item', detail: p.detail, pointer: p.pointer });
      }
    });
    // All or nothing: one invalid item rejects the request before anything is written.
    if (problems.length > 0) throw invalidInput(...problems);

    const items = command.items as ValidItem[];
    const results = await Promise.all(
      items.map(async (item) => {
        const itemType = types.get(item.typeId) as ItemTypeDefinition;
        const creator = resolveCreator(item, itemType, command.options.fallbackCreator ?? null);
        // The item decider accepts every version without looking at the earlier ones (see
        // itemDecider), so deciding on the initial state and appending with 'any' skips a read of
        // the stream per item; the store numbers the version.
        const events = itemDecider.decide({ type: 'SubmitItemVersion', item, creator, source: command.options.source }, itemDecider.initialState);
        const result = await this.aggregates.record(itemStream(command.context.orgId, item.typeId, item.id), events, command.context, 'any');
        return { id: item.id, typeId: item.typeId, version: result.nextRevision };
      }),
    );
    return results;
  }
}
