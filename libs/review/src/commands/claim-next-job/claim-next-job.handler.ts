import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import type { QueueDefinition } from '#warden/catalog';
import type { EventStore } from '#warden/eventstore';
import { type Clock, DomainError, type IdGenerator } from '#warden/kernel';
import { CLOCK, ID_GENERATOR } from '#warden/platform';
import type { Filter, ReadStore } from '#warden/readstore';
import { AggregateStore, EVENT_STORE, ProjectionHost, READ_STORE } from '#warden/storage';
import { tookAppealedAction } from '../../appealed-deciders.js';
import { versionSeen } from '../../domain/decision-effects.js';
import { lockTokenHash } from '../../domain/lock-token.js';
import { reviewJobDecider } from '../../domain/review-job.decider.js';
import { ItemVersions } from '../../item-versions.js';
import { reviewJobStream } from '../../domain/review.streams.js';
import { REVIEW_JOBS_PROJECTION } from '../../projections/review-jobs.projection.js';
import { REVIEW_JOBS, type ReviewJobDoc } from '../../projections/review-jobs.read-model.js';
import { ReviewQueues } from '../../review-queues.js';
import { ClaimCoordinator } from './claim-coordinator.js';
import { type ClaimedJob, ClaimNextJobCommand } from './claim-next-job.command.js';

/** Candidates read per query; every query is an indexed range with this LIMIT, whatever the queue's size. */
const PAGE = 20;
/** Pages read per kind of candidate before answering "nothing to offer" (a moderator who skipped hundreds of jobs). */
const MAX_PAGES = 25;

/** A lost race: someone else took, or decided, the candidate since the read model proposed it. */
const LOST_RACE = new Set(['job-locked', 'job-closed', 'concurrent-update-conflict']);

/**
 * The read model proposes candidates; each claim is decided on the job's stream with its expected
 * revision, so a candidate someone else took meanwhile is refused there and the next one is tried.
 * Candidates, in turn: jobs assigned to the caller; jobs whose lock expired (longest expired
 * first: they have waited since they were first claimed); then pending jobs in the queue's order.
 * Jobs the caller skipped are passed over until their skip ends.
 */
@CommandHandler(ClaimNextJobCommand)
export class ClaimNextJobHandler implements ICommandHandler<ClaimNextJobCommand> {
  constructor(
    private readonly aggregates: AggregateStore,
    private readonly queues: ReviewQueues,
    private readonly coordinator: ClaimCoordinator,
    private readonly items: ItemVersions,
    @Inject(READ_STORE) private readonly readStore: ReadStore,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(ID_GENERATOR) private readonly ids: IdGenerator,
    @Inject(ProjectionHost) private readonly projections: Pick<ProjectionHost, 'catchUp'>,
    @Inject(EVENT_STORE) private readonly events: EventStore,
  ) {}

  async execute(command: ClaimNextJobCommand): Promise<ClaimedJob | null> {
    const { orgId } = command.context;
    const queue = await this.queues.require(orgId, command.queueId, command.moderator.permissions);
    return this.coordinator.serialize(orgId, queue.id, async () => {
      const claimed = await this.claimNext(command, queue);
      if (claimed) return claimed;
      // Nothing on offer may only mean the read model has not seen a release or a new job yet:
      // once brought up to the log, the answer "nothing to claim" is true.
      await this.projections.catchUp(REVIEW_JOBS_PROJECTION);
      return this.claimNext(command, queue);
    });
  }

  private async claimNext(command: ClaimNextJobCommand, queue: QueueDefinition): Promise<ClaimedJob | null> {
    const { orgId } = command.context;
    const me = command.moderator.userId;
    for await (const candidate of this.candidates(orgId, queue, me)) {
      const now = this.clock.now();
      if (!this.isOffered(candidate, me, now)) continue;
      // What the claim shows (the latest version Warden has) is what a decision is made on unless
      // the moderator names another: recorded with the claim (docs/review.md, "Decisions and callbacks").
      const item = { id: candidate.itemId, typeId: candidate.itemTypeId };
      // An appeal of what the caller did since it opened: passed over before anything else is read (the decider refuses it too).
      const appealedBefore = candidate.appealId ? await tookAppealedAction(this.readStore, this.events, orgId, candidate.jobId, item, me) : false;
      if (appealedBefore && candidate.assignedTo !== me) continue;
      const shown = await this.items.latest(orgId, item);
      const token = this.ids.token(32);
      const expiresAt = new Date(now.getTime() + queue.lockTimeoutSeconds * 1000).toISOString();
      try {
        await this.aggregates.handle(
          reviewJobStream(orgId, candidate.jobId),
          reviewJobDecider,
          {
            type: 'Claim',
            moderatorId: me,
            lockTokenHash: lockTokenHash(token),
            expiresAt,
            now: now.toISOString(),
            ...(shown ? { item: versionSeen(shown) } : {}),
            ...(appealedBefore ? { tookAppealedAction: true } : {}),
          },
          command.context,
          { retries: 0 },
        );
        this.coordinator.remember(orgId, candidate.jobId, candidate.revision, now.getTime());
        return { jobId: candidate.jobId, lock: { token, expiresAt } };
      } catch (error) {
        if (error instanceof DomainError && LOST_RACE.has(error.kind)) continue;
        throw error;
      }
    }
    return null;
  }

  /** What the read model shows may be behind the streams: this only filters, the stream decides. */
  private isOffered(candidate: ReviewJobDoc, me: string, now: Date): boolean {
    if (this.coordinator.isStale(candidate.orgId, candidate, now.getTime())) return false;
    if (candidate.assignedTo !== null && candidate.assignedTo !== me) return false;
    if (candidate.excludedModerators?.includes(me) && candidate.assignedTo !== me) return false;
    const skippedUntil = candidate.skips[me];
    return skippedUntil === undefined || skippedUntil <= now.toISOString() || candidate.assignedTo === me;
  }

  private async *candidates(orgId: string, queue: QueueDefinition, me: string): AsyncGenerator<ReviewJobDoc> {
    const order = queue.order === 'PRIORITY' ? 'priorityKey' : 'fifoKey';
    const base = { orgId, queueId: queue.id };
    yield* this.pages({ ...base, state: 'ASSIGNED', assignedTo: me }, order);
    // Sorted by expiry: the expired ones come first, and the first live lock ends the list.
    for await (const locked of this.pages({ ...base, state: 'LOCKED' }, 'lockExpiresAt')) {
      if (locked.lockExpiresAt === null || locked.lockExpiresAt > this.clock.now().toISOString()) break;
      yield locked;
    }
    yield* this.pages({ ...base, state: 'PENDING' }, order);
  }

  private async *pages(filter: Filter, sortField: string): AsyncGenerator<ReviewJobDoc> {
    for (let page = 0; page < MAX_PAGES; page++) {
      const docs = await this.readStore.find<ReviewJobDoc>(REVIEW_JOBS, filter, {
        sort: [{ field: sortField, direction: 'asc' }],
        limit: PAGE,
        skip: page * PAGE,
      });
      yield* docs;
      if (docs.length < PAGE) return;
    }
  }
}
