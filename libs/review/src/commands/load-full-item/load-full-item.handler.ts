import { CommandBus, CommandHandler, type ICommandHandler, QueryBus } from '@nestjs/cqrs';
import { GetLiveEntitiesQuery } from '#warden/catalog';
import { FetchWholeItemsCommand } from '#warden/partial-items';
import type { PartialFetchOutcome } from '#warden/rules';
import { AggregateStore } from '#warden/storage';
import { reviewJobDecider } from '../../domain/review-job.decider.js';
import { jobNotFound } from '../../domain/review-job.errors.js';
import { reviewJobStream } from '../../domain/review.streams.js';
import { ItemVersions } from '../../item-versions.js';
import { relatedRefs } from '../../queries/get-review-job/review-job-view.parts.js';
import { seesChildSafety, sendsToChildSafety } from '../../contracts.js';
import { ReviewQueues } from '../../review-queues.js';
import { type FullItemOutcome, type FullItemReport, LoadFullItemCommand } from './load-full-item.command.js';

/** As many related items as the job view shows. */
const MAX_RELATED_ITEMS = 20;

@CommandHandler(LoadFullItemCommand)
export class LoadFullItemHandler implements ICommandHandler<LoadFullItemCommand> {
  constructor(
    private readonly aggregates: AggregateStore,
    private readonly queues: ReviewQueues,
    private readonly items: ItemVersions,
    private readonly commands: CommandBus,
    private readonly queries: QueryBus,
  ) {}

  async execute(command: LoadFullItemCommand): Promise<FullItemReport> {
    const { orgId, jobId } = command;
    // As the job view: another organization's job, or one in a queue the viewer may not see, does not exist.
    const state = await this.aggregates.state(reviewJobStream(orgId, jobId), reviewJobDecider);
    if (state.status === 'NONE' || !state.item || !state.queueId) throw jobNotFound(jobId);
    const visible = await this.queues.visible(orgId, command.viewer.permissions);
    if (!visible.some((q) => q.id === state.queueId)) throw jobNotFound(jobId);
    // A job another queue's decision sent to child-safety is that queue's from then on, as the job view says (docs/review.md).
    if (sendsToChildSafety(state.decision) && !seesChildSafety(command.viewer.permissions)) throw jobNotFound(jobId);

    const ref = { id: state.item.id, typeId: state.item.typeId };
    const [outcome] = await this.commands.execute(new FetchWholeItemsCommand([ref], 'console', command.context));
    const item = reported(ref, null, outcome!);
    // The related items named by the whole item (or, when it could not be had, by the latest version held).
    const data = outcome!.ok ? outcome!.item.data : ((await this.items.latest(orgId, ref))?.data ?? null);
    const type = (await this.queries.execute(new GetLiveEntitiesQuery(orgId, 'itemType'))).find((t) => t.id === ref.typeId);
    const refs = data && type ? relatedRefs(data, type, MAX_RELATED_ITEMS) : [];
    const unknown = (await Promise.all(refs.map(async (r) => ((await this.items.latest(orgId, r)) === null ? r : null)))).filter((r) => r !== null);
    if (unknown.length === 0) return { item, related: [] };
    const outcomes = await this.commands.execute(
      new FetchWholeItemsCommand(
        unknown.map((r) => ({ id: r.id, typeId: r.typeId })),
        'related-item',
        command.context,
      ),
    );
    return { item, related: unknown.map((r, i) => reported(r, r.field, outcomes[i]!)) };
  }
}

function reported(ref: { id: string; typeId: string }, field: string | null, outcome: PartialFetchOutcome): FullItemOutcome {
  const base = { id: ref.id, typeId: ref.typeId, field };
  if (!outcome.ok) return { ...base, status: 'failed', version: null, typeVersion: null, data: null, reason: outcome.reason };
  const { item } = outcome;
  return { ...base, status: outcome.cached ? 'cached' : 'fetched', version: item.version, typeVersion: item.typeVersion, data: { ...item.data }, reason: null };
}
