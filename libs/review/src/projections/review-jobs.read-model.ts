import type { EnqueueSource, JobItem, DecisionType } from '../domain/review-job.events.js';

export const REVIEW_JOBS = 'review_jobs';

/**
 * PENDING: claimable. LOCKED: a moderator held it at `lockExpiresAt` (once that passed, anyone may
 * claim it; the read model does not move it back by itself). ASSIGNED: reserved for `assignedTo`.
 * CLOSED: decided.
 */
export type JobState = 'PENDING' | 'LOCKED' | 'ASSIGNED' | 'CLOSED';

/** One review job as queues, claim candidates and the managers' list read it. */
export interface ReviewJobDoc {
  orgId: string;
  jobId: string;
  queueId: string;
  generation: number;
  item: JobItem;
  itemTypeId: string;
  itemId: string;
  /** The latest item version a request named. */
  version: number;
  state: JobState;
  /** How the job was first enqueued, and every source merged since (distinct, in order). */
  source: EnqueueSource;
  sources: EnqueueSource[];
  reportCount: number;
  requestCount: number;
  /** 0 (NONE) to 4 (SEVERE): the most severe penalty among the policies the requests name. */
  severity: number;
  policyIds: string[];
  openedAt: string;
  fifoKey: string;
  priorityKey: string;
  lockedBy: string | null;
  lockExpiresAt: string | null;
  assignedTo: string | null;
  /** Moderator id → skipped until. */
  skips: { [moderatorId: string]: string };
  firstClaimedAt: string | null;
  /** An appeal job's appeal id (missing in documents from before appeals: none). */
  appealId?: string | null;
  /** Moderators the job is not offered to (an appeal's: they took the appealed decision). */
  excludedModerators?: string[];
  decision: {
    decisionId: string;
    type: DecisionType;
    actorId: string | null;
    decidedAt: string;
    closeReason: string | null;
    /**
     * The actions it took: an appeal excludes the moderators whose decisions took the appealed ones
     * from this, not from each job's stream (missing in documents from before 2026-12-03: read there).
     */
    actionIds?: string[];
  } | null;
  /** The job stream's revision last applied (redelivery guard). */
  revision: number;
}

export const reviewJobDocId = (orgId: string, jobId: string) => `${orgId}:${jobId}`;
