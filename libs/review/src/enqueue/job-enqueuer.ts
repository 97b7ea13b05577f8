import { Inject, Injectable } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
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

/** Closed generations just below the current one where a request is always looked for (a reactor's re-run). */
export const RERUN_WINDOW = 8;
/** How far the clock that stamped a request (`at`) may be ahead of the one that opened a job. */
export const CLOCK_SKEW_MS = 5 * 60_000;
/** Items × queues whose current generation this process remembers (a hint: any lower bound is right). */
const HINTS = 10_000;

/**
 * Puts a request into the item's one open job in the queue (one open job per item and queue):
 * the first generation that is not closed, merged into if open, opened if not yet created. Each
 * step is decided on that job's stream with its expected revision, so two requests racing for a
 * new job end up in the same one.
 *
 * Generations close in order: one is opened only after the one before it refused as closed, a
 * closed job never opens again, and no job stream is ever deleted. So the first not closed is
 * found by galloping up from a known lower bound and halving back, O(log G) state reads, where
 * walking every closed generation cost a stream read each (an item reported and decided ten
 * thousand times: 0.2 s per report). A request already merged (a reactor's re-run after a crash)
 * is looked for in the current job, the RERUN_WINDOW closed just below it, and below those in
 * every job that was still open when the request was made (by the opening of the job above it):
 * a new request reads a handful of jobs, a re-run as many as closed since it was made.
 */
@Injectable()
export class JobEnqueuer {
  /** (org, item, queue) → a generation known to exist: every one below it is closed. */
  private readonly hints = new LRUCache<string, number>({ max: HINTS });

  constructor(
    private readonly aggregates: AggregateStore,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async enqueue(context: CommandContext, job: JobToEnqueue): Promise<Enqueued> {
    if (job.jobId !== undefined) return this.enqueueInto(context, job, job.jobId, 0);
    const hint = `${context.orgId}\u0000${job.item.typeId}\u0000${job.item.id}\u0000${job.queueId}`;
    const stream = (generation: number) => reviewJobStream(context.orgId, reviewJobId(context.orgId, job.item, job.queueId, generation));
    const closed = async (generation: number) => (await this.aggregates.state(stream(generation), reviewJobDecider)).status === 'CLOSED';
    let generation = await firstNotClosed(closed, this.hints.get(hint) ?? 0);
    // A re-run's request, merged before a crash, may be in a job closed since. It can be in job g
    // only if g was still open when the request was made, i.e. if g + 1 opened after that (less
    // the clocks' skew): below the window, the walk goes on only while that holds.
    const madeAt = Date.parse(job.request.at);
    const since = Number.isNaN(madeAt) ? -Infinity : madeAt - CLOCK_SKEW_MS;
    let aboveOpenedAt = Infinity;
    for (let g = generation - 1; g >= 0 && (g >= generation - RERUN_WINDOW || aboveOpenedAt >= since); g--) {
      const state = await this.aggregates.state(stream(g), reviewJobDecider);
      if (state.requestIds.has(job.request.requestId)) {
        return { jobId: reviewJobId(context.orgId, job.item, job.queueId, g), generation: g, appended: false, state };
      }
      aboveOpenedAt = state.openedAt === null ? -Infinity : Date.parse(state.openedAt);
    }
    for (; ; generation++) {
      try {
        const enqueued = await this.enqueueInto(context, job, reviewJobId(context.orgId, job.item, job.queueId, generation), generation);
        this.hints.set(hint, generation);
        return enqueued;
      } catch (error) {
        // Closed since it was looked at: the next one.
        if (error instanceof DomainError && error.kind === 'job-closed') continue;
        throw error;
      }
    }
  }

  private async enqueueInto(context: CommandContext, job: JobToEnqueue, jobId: string, generation: number): Promise<Enqueued> {
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
  }
}

/**
 * The first generation at or above `from` that is not closed, given that those below `from` are
 * and that closed ones form a prefix: probes from, from + 1, from + 3, from + 7 … until one is not
 * closed, then halves the last step.
 */
export async function firstNotClosed(closed: (generation: number) => Promise<boolean>, from: number): Promise<number> {
  if (!(await closed(from))) return from;
  let low = from; // closed
  let step = 1;
  let high = from + step;
  while (await closed(high)) {
    low = high;
    step *= 2;
    high = low + step;
  }
  // low closed, high not: the answer is in (low, high].
  while (high - low > 1) {
    const middle = low + Math.floor((high - low) / 2);
    if (await closed(middle)) low = middle;
    else high = middle;
  }
  return high;
}
