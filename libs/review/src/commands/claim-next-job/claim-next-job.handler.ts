import { createHash } from 'node:crypto';
import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { type Clock, DomainError, type IdGenerator } from '#warden/kernel';
import { CLOCK, ID_GENERATOR } from '#warden/platform';
import type { ReadStore } from '#warden/readstore';
import { AggregateStore, READ_STORE } from '#warden/storage';
import { reviewJobDecider } from '../../domain/review-job.decider.js';
import { reviewJobStream } from '../../domain/review.streams.js';
import { REVIEW_JOBS, type ReviewJobDoc } from '../../projections/review-jobs.read-model.js';
import { ReviewQueues } from '../../review-queues.js';
import { type ClaimedJob, ClaimNextJobCommand } from './claim-next-job.command.js';

const CANDIDATES = 20;

export const lockTokenHash = (token: string) => createHash('sha256').update(token).digest('base64url');

/**
 * The read model proposes candidates in the queue's order; each claim is decided on the job's
 * stream, so a candidate someone else took meanwhile is refused there and the next one is tried.
 */
@CommandHandler(ClaimNextJobCommand)
export class ClaimNextJobHandler implements ICommandHandler<ClaimNextJobCommand> {
  constructor(
    private readonly aggregates: AggregateStore,
    private readonly queues: ReviewQueues,
    @Inject(READ_STORE) private readonly readStore: ReadStore,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(ID_GENERATOR) private readonly ids: IdGenerator,
  ) {}

  async execute(command: ClaimNextJobCommand): Promise<ClaimedJob | null> {
    const { orgId } = command.context;
    const queue = await this.queues.require(orgId, command.queueId, command.moderator.permissions);
    const sortField = queue.order === 'PRIORITY' ? 'priorityKey' : 'fifoKey';
    const candidates = await this.readStore.find<ReviewJobDoc>(
      REVIEW_JOBS,
      { orgId, queueId: queue.id, state: 'PENDING' },
      { sort: [{ field: sortField, direction: 'asc' }], limit: CANDIDATES },
    );
    for (const candidate of candidates) {
      const token = this.ids.token(32);
      const now = this.clock.now();
      const expiresAt = new Date(now.getTime() + queue.lockTimeoutSeconds * 1000).toISOString();
      try {
        await this.aggregates.handle(
          reviewJobStream(orgId, candidate.jobId),
          reviewJobDecider,
          { type: 'Claim', moderatorId: command.moderator.userId, lockTokenHash: lockTokenHash(token), expiresAt, now: now.toISOString() },
          command.context,
          { retries: 0 },
        );
        return { jobId: candidate.jobId, lock: { token, expiresAt } };
      } catch (error) {
        if (error instanceof DomainError && (error.kind === 'job-locked' || error.kind === 'job-closed' || error.kind === 'concurrent-update-conflict')) continue;
        throw error;
      }
    }
    return null;
  }
}
