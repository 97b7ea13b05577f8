import { Injectable } from '@nestjs/common';
import { CHILD_SAFETY_QUEUE_ID } from '#warden/catalog';
import type { Permission } from '#warden/kernel';
import { AggregateStore } from '#warden/storage';
import { reviewJobDecider, type ReviewJobState } from './domain/review-job.decider.js';
import { jobNotFound } from './domain/review-job.errors.js';
import { reviewJobStream } from './domain/review.streams.js';
import { ReviewQueues } from './review-queues.js';

const DEFAULT_LOCK_TIMEOUT_SECONDS = 600;

/**
 * A job a console user may act on: of their organization (the stream is scoped by it), and of a
 * queue they may see. Otherwise a 404 — a child-safety job is not shown to exist without
 * VIEW_CHILD_SAFETY_DATA. Read from the job's stream, not the read model, so a job opened a
 * moment ago is found.
 */
@Injectable()
export class ReviewJobAccess {
  constructor(
    private readonly aggregates: AggregateStore,
    private readonly queues: ReviewQueues,
  ) {}

  /** `lockTimeoutSeconds`: the job's queue's (the built-in default when the queue was removed from the configuration since). */
  async require(orgId: string, jobId: string, permissions: readonly Permission[]): Promise<{ state: ReviewJobState; lockTimeoutSeconds: number }> {
    const { state } = await this.aggregates.load(reviewJobStream(orgId, jobId), reviewJobDecider);
    if (state.status === 'NONE' || state.queueId === null) throw jobNotFound(jobId);
    if (state.queueId === CHILD_SAFETY_QUEUE_ID && !permissions.includes('VIEW_CHILD_SAFETY_DATA')) throw jobNotFound(jobId);
    const queue = (await this.queues.all(orgId)).find((q) => q.id === state.queueId);
    return { state, lockTimeoutSeconds: queue?.lockTimeoutSeconds ?? DEFAULT_LOCK_TIMEOUT_SECONDS };
  }
}
