import { Inject, Injectable } from '@nestjs/common';
import { type Clock, type CommandContext, deterministicId, DomainError } from '#warden/kernel';
import { CLOCK } from '#warden/platform';
import { AggregateStore } from '#warden/storage';
import { reviewJobDecider, type ReviewJobState } from '../domain/review-job.decider.js';
import type { CarriedJob, EnqueueRequest, JobItem, ReportReasons } from '../domain/review-job.events.js';
import { reviewJobId, reviewJobStream } from '../domain/review.streams.js';

export interface JobToEnqueue {
  readonly queueId: string;
  readonly item: JobItem;
  readonly request: EnqueueRequest;
  /** MRT_JOB: the requests of the job it is recreated from. */
  readonly carried?: EnqueueRequest[];
  /** MRT_JOB of a job with many requests: that job, named instead of its requests copied. */
  readonly carriedFrom?: CarriedJob;
  readonly reasons?: ReportReasons;
  readonly subject?: string | null;
  /** A job of its own with this id (an appeal's), instead of the item's one open job in the queue. */
  readonly jobId?: string;
}

export interface Enqueued {
  readonly jobId: string;
  readonly generation: number;
  /** False when the request was already in the job (a re-run). */
  readonly appended: boolean;
  readonly state: ReviewJobState;
}

/**
 * Puts a request into the item's one open job in the queue (one open job per item and queue):
 * generation 0, 1, … in turn until one is open (merge) or not yet created (open). Each step is
 * decided on that job's stream with its expected revision, so two requests racing for a new job
 * end up in the same one, and a request already merged (a reactor re-run) is found wherever it is,
 * even in a job decided since: closed generations are walked, never skipped.
 */
@Injectable()
export class JobEnqueuer {
  constructor(
    private readonly aggregates: AggregateStore,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async enqueue(context: CommandContext, job: JobToEnqueue): Promise<Enqueued> {
    for (let generation = 0; ; generation++) {
      const jobId = job.jobId ?? reviewJobId(context.orgId, job.item, job.queueId, generation);
      try {
        const handled = await this.aggregates.handle(
          reviewJobStream(context.orgId, jobId),
          reviewJobDecider,
          {
            type: 'Enqueue',
            jobId,
            queueId: job.queueId,
            generation,
            item: job.item,
            request: job.request,
            carried: job.carried ?? [],
            carriedFrom: job.carriedFrom ?? null,
            reasons: job.reasons ?? {},
            subject: job.subject ?? null,
            now: this.clock.now().toISOString(),
          },
          context,
          { retries: 20, eventIds: () => deterministicId('review-enqueue', jobId, job.request.requestId) },
        );
        return { jobId, generation, appended: handled.events.length > 0, state: handled.state };
      } catch (error) {
        if (error instanceof DomainError && error.kind === 'job-closed' && job.jobId === undefined) continue;
        throw error;
      }
    }
  }
}
