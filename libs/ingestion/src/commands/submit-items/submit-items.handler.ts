import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler, QueryBus } from '@nestjs/cqrs';
import { GetLiveEntitiesQuery, validateItem, type ItemTypeDefinition } from '#warden/catalog';
import { deterministicId, type ErrorDetail, invalidInput, partTooLarge } from '#warden/kernel';
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

  private async itemTypes(orgId: string): Promise<ReadonlyMap<string, ItemTypeDefinition>> {
    return new Map((await this.queries.execute(new GetLiveEntitiesQuery(orgId, 'itemType'))).map((t) => [t.id, t] as const));
  }

  async execute(command: SubmitItemsCommand): Promise<AcceptedItem[]> {
    const { pointer } = command.options;
    const at = (i: number) => (command.options.single ? pointer : `${pointer}/${i}`);
    if (command.items.length > this.config.maxItemsPerRequest) {
      throw invalidInput({
        title: 'Invalid request',
        detail: `at most ${this.config.maxItemsPerRequest} items per request (got ${command.items.length})`,
        pointer,
      });
    }
    const oversized = oversizedItems(command.items, at, this.config.maxItemBytes);
    if (oversized.length > 0) throw partTooLarge(...oversized);
    const given = command.options.itemTypes;
    const givenCovers = given !== undefined && command.items.every((i: unknown) => given.has((i as { typeId?: string } | null)?.typeId ?? ''));
    let types = givenCovers ? given : await this.itemTypes(command.context.orgId);
    // An item type applied moments ago may not be projected yet (or no worker runs here):
    // catch the catalog up before calling a type unknown.
    if (command.items.some((i: unknown) => !types.has((i as { typeId?: string } | null)?.typeId ?? ''))) {
      await this.projections.catchUp('catalog');
      types = await this.itemTypes(command.context.orgId);
    }
    const known = new Set(types.keys());
    const problems: ErrorDetail[] = [];
    command.items.forEach((item, i) => {
      if (typeof item !== 'object' || item === null || Array.isArray(item)) {
        problems.push({ title: 'Invalid item', detail: 'expected an object', pointer: at(i) });
        return;
      }
      const typeId = (item as { typeId?: unknown }).typeId;
      const itemType = typeof typeId === 'string' ? types.get(typeId) : undefined;
      for (const p of validateItem(item, itemType, { pointer: at(i), knownItemTypeIds: known })) {
        problems.push({ title: 'Invalid item', detail: p.detail, pointer: p.pointer });
      }
    });
    problems.push(...duplicateProblems(command.items, at));
    // All or nothing: one invalid item rejects the request before anything is written.
    if (problems.length > 0) throw invalidInput(...problems);

    // Every stream name and event is built before the first append, so that nothing that can
    // throw while building them runs once part of the batch is written.
    const batch = (command.items as ValidItem[]).map((item) => {
      const itemType = types.get(item.typeId) as ItemTypeDefinition;
      const creator = resolveCreator(item, itemType, command.options.fallbackCreator ?? null);
      // The item decider accepts every version without looking at the earlier ones (see
      // itemDecider), so deciding on the initial state and appending with 'any' skips a read of
      // the stream per item; the store numbers the version.
      const events = itemDecider.decide({ type: 'SubmitItemVersion', item, creator, source: command.options.source }, itemDecider.initialState);
      return { item, events, stream: itemStream(command.context.orgId, item.typeId, item.id) };
    });
    const { submissionId } = command.options;
    const results = await Promise.all(
      batch.map(async ({ item, events, stream }) => {
        // Derived ids make a repeat a no-op in the store (architecture.md, "Event store port"),
        // also when a crash had written only part of the batch the first time.
        const eventIds =
          submissionId === undefined ? undefined : (_e: unknown, i: number) => deterministicId('item-submission', submissionId, stream, String(i));
        // A record of the submission, nothing decided on the stream (every version is accepted): no read per item on this hot path.
        const result = await this.aggregates.record(stream, events, command.context, 'any', eventIds);
        return { id: item.id, typeId: item.typeId, version: result.nextRevision, subject: events[0]!.data.subject };
      }),
    );
    return results;
  }
}

/** Items whose JSON serialization is over the per-item limit (WARDEN_MAX_ITEM_BYTES): 413. */
function oversizedItems(items: readonly unknown[], at: (index: number) => string, maxItemBytes: number): ErrorDetail[] {
  const problems: ErrorDetail[] = [];
  items.forEach((item, i) => {
    const json = JSON.stringify(item) ?? '';
    // UTF-8 needs at most 3 bytes per UTF-16 code unit: most items need no byte count.
    const bytes = json.length * 3 > maxItemBytes ? Buffer.byteLength(json, 'utf8') : json.length;
    if (bytes > maxItemBytes) {
      problems.push({
        title: 'Payload too large',
        detail: `the item has ${bytes} bytes as JSON; at most ${maxItemBytes} bytes per item`,
        pointer: at(i),
      });
    }
  });
  return problems;
}

/**
 * The same item (type id and id) twice in one request is refused rather than recorded as two
 * versions: which one would be "latest" would depend on the order of appends.
 */
function duplicateProblems(items: readonly unknown[], at: (index: number) => string): ErrorDetail[] {
  const firstIndex = new Map<string, Map<string, number>>();
  const problems: ErrorDetail[] = [];
  items.forEach((item, i) => {
    const { id, typeId } = (item ?? {}) as { id?: unknown; typeId?: unknown };
    if (typeof id !== 'string' || typeof typeId !== 'string' || id === '' || typeId === '') return;
    let ofType = firstIndex.get(typeId);
    if (ofType === undefined) firstIndex.set(typeId, (ofType = new Map()));
    const first = ofType.get(id);
    if (first === undefined) ofType.set(id, i);
    else {
      problems.push({
        title: 'Invalid item',
        detail: `duplicate of item ${first} (${at(first)}): the same typeId and id may appear once per request`,
        pointer: `${at(i)}/id`,
      });
    }
  });
  return problems;
}
