import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import type { EventStore } from '#warden/eventstore';
import { type ItemIdentifier, latestSubmission } from '#warden/ingestion';
import type { ReadStore } from '#warden/readstore';
import { EVENT_STORE, ProjectionHost, READ_STORE } from '#warden/storage';
import type { EnqueueRequest } from '../../domain/review-job.events.js';
import { appealJobId } from '../../domain/review.streams.js';
import { JobEnqueuer } from '../../enqueue/job-enqueuer.js';
import { jobPoliciesIn, ReviewRouter, typeNameIn } from '../../enqueue/review-router.js';
import { REVIEW_JOBS_PROJECTION } from '../../projections/review-jobs.projection.js';
import { appealedDeciders } from '../../appealed-deciders.js';
import { OpenAppealJobCommand } from './open-appeal-job.command.js';

@CommandHandler(OpenAppealJobCommand)
export class OpenAppealJobHandler implements ICommandHandler<OpenAppealJobCommand> {
  constructor(
    private readonly enqueuer: JobEnqueuer,
    private readonly router: ReviewRouter,
    @Inject(EVENT_STORE) private readonly events: EventStore,
    @Inject(READ_STORE) private readonly readStore: ReadStore,
    @Inject(ProjectionHost) private readonly projections: ProjectionHost,
  ) {}

  async execute(command: OpenAppealJobCommand): Promise<{ jobId: string; queueId: string }> {
    const { appeal, context } = command;
    const orgId = context.orgId;
    const item = { id: appeal.item.id, typeId: appeal.item.typeId };
    const [recorded, catalog] = await Promise.all([
      latestSubmission(this.events, orgId, item).then((found) => found ?? { version: 0, creator: null }),
      // One read of the catalog: the appeal routing, the job's policies and type name.
      this.router.catalog(orgId, 'appeal', item.typeId),
    ]);
    // First passing appeal routing rule (on the data the platform sent); else the appeals default; else the default queue.
    const [queueId, excludedModerators] = await Promise.all([
      this.router.route(orgId, catalog, { ...item, content: { data: appeal.item.data, creator: recorded.creator } }),
      this.appealedDeciders(orgId, item, appeal.actionsTaken),
    ]);
    const policies = jobPoliciesIn(catalog, appeal.violatingPolicyIds);
    const typeName = typeNameIn(catalog, item.typeId);
    const request: EnqueueRequest = {
      requestId: appeal.appealId,
      // The spec's enqueue sources name no appeal: an appeal comes in through the report family of routes.
      source: 'REPORT',
      at: appeal.appealedAt,
      version: recorded.version,
      report: null,
      action: null,
      policies,
      routedBy: queueId.routedBy,
      fromJobId: null,
      appeal: {
        appealId: appeal.appealId,
        actionsTaken: [...appeal.actionsTaken],
        violatingPolicyIds: [...appeal.violatingPolicyIds],
        excludedModerators,
      },
    };
    const jobId = appealJobId(orgId, appeal.appealId);
    await this.enqueuer.enqueue(context, { jobId, queueId: queueId.queueId, item: { ...item, typeName }, request });
    return { jobId, queueId: queueId.queueId };
  }

  /** The moderators whose decisions on the item took one of the appealed actions (appealedDeciders). */
  private async appealedDeciders(orgId: string, item: ItemIdentifier, actionsTaken: readonly string[]): Promise<string[]> {
    // A platform may appeal as soon as the decision's callback arrives, before the read model has it.
    await this.projections.catchUp(REVIEW_JOBS_PROJECTION);
    return appealedDeciders(this.readStore, this.events, orgId, item, actionsTaken);
  }
}
