import { Injectable } from '@nestjs/common';
import type { Handled, HandleOptions } from '#warden/eventstore';
import type { CommandContext, Decider } from '#warden/kernel';
import type { Permission } from '#warden/identity/contracts';
import { AggregateStore } from '#warden/storage';
import { type ReviewJobCommand, reviewJobDecider, type ReviewJobState } from './domain/review-job.decider.js';
import { jobNotFound } from './domain/review-job.errors.js';
import type { ReviewJobEvent } from './domain/review-job.events.js';
import { reviewJobStream } from './domain/review.streams.js';
import { queueVisibleTo, seesChildSafety, sendsToChildSafety } from './contracts.js';
import { ReviewQueues } from './review-queues.js';

const DEFAULT_LOCK_TIMEOUT_SECONDS = 600;

/** A job as a command on it sees it, once the caller may act on it. */
export interface AccessibleJob {
  readonly state: ReviewJobState;
  /** The job's queue's (the built-in default when the queue was removed from the configuration since). */
  readonly lockTimeoutSeconds: number;
}

/**
 * Commands on a job a console user may act on: of their organization (the stream is scoped by it),
 * and of a queue they may see. Otherwise a 404 — a child-safety job is not shown to exist without
 * VIEW_CHILD_SAFETY_DATA. The check runs on the state the command is decided on, so a command
 * reads the job's stream once (and a job opened a moment ago is found: the read model is not asked).
 */
@Injectable()
export class ReviewJobAccess {
  constructor(
    private readonly aggregates: AggregateStore,
    private readonly queues: ReviewQueues,
  ) {}

  /** Decides the command `commandFor` makes of the accessible job, with the job's expected revision. */
  async decide(
    orgId: string,
    jobId: string,
    permissions: readonly Permission[],
    commandFor: (job: AccessibleJob) => ReviewJobCommand,
    context: CommandContext,
    options?: HandleOptions,
  ): Promise<Handled<ReviewJobEvent, ReviewJobState>> {
    const lockTimeouts = new Map((await this.queues.all(orgId)).map((q) => [q.id, q.lockTimeoutSeconds] as const));
    const checked: Decider<(job: AccessibleJob) => ReviewJobCommand, ReviewJobState, ReviewJobEvent> = {
      ...reviewJobDecider,
      decide: (make, state) => {
        if (state.status === 'NONE' || state.queueId === null) throw jobNotFound(jobId);
        if (!queueVisibleTo(permissions, state.queueId)) throw jobNotFound(jobId);
        // A job another queue's decision sent to child-safety (its report submitted, or moved there) is that queue's from then on, as the job view shows it.
        if (sendsToChildSafety(state.decision) && !seesChildSafety(permissions)) throw jobNotFound(jobId);
        const lockTimeoutSeconds = lockTimeouts.get(state.queueId) ?? DEFAULT_LOCK_TIMEOUT_SECONDS;
        return reviewJobDecider.decide(make({ state, lockTimeoutSeconds }), state);
      },
    };
    return this.aggregates.handle(reviewJobStream(orgId, jobId), checked, commandFor, context, options);
  }
}
