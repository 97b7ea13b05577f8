import { MAX_AUTO_CLOSE_DAYS } from '#warden/catalog/contracts';
import type { ActionExecuted } from '#warden/enforcement';
import { type Clock, type CommandContext, deterministicId } from '#warden/kernel';
import type { ReadStore } from '#warden/readstore';
import type { AggregateStore } from '#warden/storage';
import { reviewJobDecider } from '../domain/review-job.decider.js';
import type { ReviewJobDecided } from '../domain/review-job.events.js';
import { reviewJobStream } from '../domain/review.streams.js';
import { AUTO_CLOSE_QUEUES, type AutoCloseQueueDoc } from '../projections/auto-close-queues.projection.js';
import { REVIEW_JOBS, type JobState, type ReviewJobDoc } from '../projections/review-jobs.read-model.js';

const OPEN_STATES: readonly JobState[] = ['PENDING', 'LOCKED', 'ASSIGNED'];
/** Jobs closed per queue and sweep: a backlog drains over a few sweeps rather than in one burst. */
export const EXPIRED_PER_SWEEP = 200;
/**
 * An erased user's items whose open jobs are looked up (a query each) in one turn of the event
 * loop, which then serves what waits (closeJobsOfErasedUser).
 */
export const ERASED_ITEMS_PER_TURN = 500;
const DAY_MS = 86_400_000;

export interface JobAutoCloserDeps {
  readonly readStore: ReadStore;
  readonly aggregates: AggregateStore;
  readonly clock: Clock;
  /** Brings the read models it queries up to the log (review jobs, auto-close queues), or through a log position. */
  readonly catchUp: (through?: number) => Promise<void>;
}

/**
 * AUTOMATIC_CLOSE, the system's decision: a job whose item another decision actioned
 * (ITEM_ACTIONED), that waited longer than its queue's `autoCloseAfterDays` (EXPIRED), or whose
 * item's user was erased (USER_ERASED). The read model proposes the jobs; each close is decided
 * on the job's stream (an already closed job is left alone), with a decision id derived from its cause, so a re-run closes nothing twice.
 */
export class JobAutoCloser {
  constructor(private readonly deps: JobAutoCloserDeps) {}

  /** The item's other open jobs, after a decision that actioned it. */
  async closeOtherJobs(decided: ReviewJobDecided['data'], context: CommandContext): Promise<number> {
    const { orgId } = context;
    const state = await this.deps.aggregates.state(reviewJobStream(orgId, decided.jobId), reviewJobDecider);
    const item = state.item;
    if (!item) return 0;
    await this.deps.catchUp();
    return this.closeOpenJobs(
      item,
      decided.decidedAt,
      (jobId) => (jobId === decided.jobId ? null : deterministicId('auto-close', decided.decisionId, jobId)),
      context,
    );
  }

  /** The open jobs of the items an action the platform executed answers (its `reportedItems`). */
  async closeJobsOfReportedItems(executed: ActionExecuted['data'], context: CommandContext): Promise<number> {
    if (executed.reportedItems.length === 0) return 0;
    await this.deps.catchUp();
    let closed = 0;
    // An enqueue action puts its item into review: closing that item's jobs would close the job it
    // just opened or joined.
    const enqueued = executed.action.kind !== 'CUSTOMER_DEFINED_ACTION';
    for (const item of executed.reportedItems) {
      if (enqueued && item.id === executed.item.id && item.typeId === executed.item.typeId) continue;
      closed += await this.closeOpenJobs(item, executed.executedAt, (jobId) => deterministicId('auto-close-executed', executed.executionId, jobId), context);
    }
    return closed;
  }

  /**
   * The open jobs of the items an erased user submitted (a GDPR deletion `requestId`), appeal jobs
   * included: the appellant whose appeal such a job answers is the erased user. Only jobs opened by
   * the request (`requested`: its log position and time): the read models are caught up that far,
   * not to the head, so a busy log does not hold the deletion back, and a job opened meanwhile stays
   * open, its content erased with the key (docs/gdpr.md, "While it runs"). USER_ERASED, under a
   * decision id derived from the request, so a re-run closes nothing twice.
   */
  async closeJobsOfErasedUser(
    items: ReadonlyArray<{ id: string; typeId: string }>,
    requestId: string,
    context: CommandContext,
    requested: { readonly position: number; readonly at: string },
  ): Promise<number> {
    if (items.length === 0) return 0;
    await this.deps.catchUp(requested.position);
    let closed = 0;
    for (let start = 0; start < items.length; start += ERASED_ITEMS_PER_TURN) {
      // The look-ups are synchronous on SQLite, and most of a flooding user's items have no open
      // job, so nothing else would yield: 100,000 items held the event loop (and every reactor and
      // request of the process) for seconds. A turn looks up this many items' jobs, then yields.
      if (start > 0) await new Promise((resolve) => setImmediate(resolve));
      for (const item of items.slice(start, start + ERASED_ITEMS_PER_TURN)) {
        for (const job of await this.openJobsOf(context.orgId, item, { withAppeals: true })) {
          if (job.openedAt > requested.at) continue;
          const decisionId = deterministicId('auto-close-erased', requestId, job.jobId);
          if (await this.close(context.orgId, job.jobId, decisionId, 'USER_ERASED', context)) closed++;
        }
      }
    }
    return closed;
  }

  /**
   * The item's open jobs (PENDING first, then LOCKED, then ASSIGNED, each oldest opened first).
   * Appeal jobs only `withAppeals`: an appeal is answered by a moderator's ACCEPT or REJECT, and
   * closing it for the item's sake would leave the appellant without an answer. One query for all
   * of the item's jobs, open or closed, sorted out here: the index on (orgId, itemTypeId, itemId,
   * openedAt) serves it, whereas the filter language has no `in` for the three open states, and a
   * query per state read the same jobs three times (the state is not in the index: an item reported
   * and decided over and over has many closed jobs, read either way). Sorted by openedAt, the
   * index's own order: unsorted, MongoDB would still order them by _id, which the index does not
   * give, so every job of the item was sorted in memory at each action on it (a review's reading).
   */
  private async openJobsOf(orgId: string, item: { id: string; typeId: string }, { withAppeals }: { withAppeals: boolean }): Promise<ReviewJobDoc[]> {
    const jobs = await this.deps.readStore.find<ReviewJobDoc>(
      REVIEW_JOBS,
      { orgId, itemTypeId: item.typeId, itemId: item.id },
      { sort: [{ field: 'openedAt', direction: 'asc' }] },
    );
    return (
      jobs
        .filter((job) => OPEN_STATES.includes(job.state) && (withAppeals || (job.appealId ?? null) === null))
        // Stable: the order the three queries gave.
        .sort((a, b) => OPEN_STATES.indexOf(a.state) - OPEN_STATES.indexOf(b.state))
    );
  }

  /**
   * The item's jobs open at `actionedAt`, each closed with ITEM_ACTIONED under the decision id
   * `decisionIdOf` derives from its cause (null: leave that job alone). The read models are
   * caught up by the caller.
   */
  private async closeOpenJobs(
    item: { id: string; typeId: string },
    actionedAt: string,
    decisionIdOf: (jobId: string) => string | null,
    context: CommandContext,
  ): Promise<number> {
    const { orgId } = context;
    let closed = 0;
    for (const job of await this.openJobsOf(orgId, item, { withAppeals: false })) {
      const decisionId = decisionIdOf(job.jobId);
      // Only the jobs open when the item was actioned: a report that came after opens a job the
      // moderator never saw, which a re-run of this reactor must not close either.
      if (decisionId === null || job.openedAt > actionedAt) continue;
      if (await this.close(orgId, job.jobId, decisionId, 'ITEM_ACTIONED', context)) closed++;
    }
    return closed;
  }

  /**
   * One sweep: in each queue with `autoCloseAfterDays`, its oldest pending jobs that waited longer
   * than that (the read model's fifoKey order is the opening order, so the walk stops at the first
   * younger one).
   */
  async closeExpired(context: Omit<CommandContext, 'orgId'>): Promise<number> {
    await this.deps.catchUp();
    const now = this.deps.clock.now();
    const queues = await this.deps.readStore.find<AutoCloseQueueDoc>(AUTO_CLOSE_QUEUES, {});
    let closed = 0;
    for (const queue of queues) {
      // Bounded as apply bounds it, for a queue stored before (a cutoff past year -271821 is no date, and would stop every queue's sweep).
      const cutoff = new Date(now.getTime() - Math.min(queue.autoCloseAfterDays, MAX_AUTO_CLOSE_DAYS) * DAY_MS).toISOString();
      const oldest = await this.deps.readStore.find<ReviewJobDoc>(
        REVIEW_JOBS,
        // Appeal jobs never expire (they are answered by ACCEPT or REJECT only): left out here, so
        // that old appeals cannot fill a sweep's page and stall the expiry of the queue's other jobs.
        { orgId: queue.orgId, queueId: queue.queueId, state: 'PENDING', appealId: null },
        { sort: [{ field: 'fifoKey', direction: 'asc' }], limit: EXPIRED_PER_SWEEP },
      );
      for (const job of oldest) {
        if (job.openedAt >= cutoff) break;
        const decisionId = deterministicId('auto-close-expired', queue.orgId, job.jobId);
        if (await this.close(queue.orgId, job.jobId, decisionId, 'EXPIRED', { ...context, orgId: queue.orgId })) closed++;
      }
    }
    return closed;
  }

  private async close(
    orgId: string,
    jobId: string,
    decisionId: string,
    closeReason: 'ITEM_ACTIONED' | 'EXPIRED' | 'USER_ERASED',
    context: CommandContext,
  ): Promise<boolean> {
    const handled = await this.deps.aggregates.handle(
      reviewJobStream(orgId, jobId),
      reviewJobDecider,
      { type: 'AutoClose', decisionId, closeReason, now: this.deps.clock.now().toISOString() },
      context,
      { retries: 10, eventIds: () => deterministicId('review-auto-close', decisionId) },
    );
    return handled.events.length > 0;
  }
}
