import type { JobState } from '../../projections/review-jobs.read-model.js';
import type { DecisionType, EnqueueSource, JobItem } from '../../domain/review-job.events.js';

/**
 * The job view's contract (the enriched fields are added by the job-view work; everything here
 * is present from the first version).
 */
export interface ReviewJobView {
  jobId: string;
  queueId: string;
  state: JobState;
  item: JobItem & { version: number };
  source: EnqueueSource;
  sources: EnqueueSource[];
  reportCount: number;
  openedAt: string;
  lock: { moderatorId: string; expiresAt: string } | null;
  assignedTo: string | null;
  decision: { decisionId: string; type: DecisionType; actorId: string | null; decidedAt: string } | null;
  /** Enriched parts (item data, thread, reports, creator, evaluations, hash matches, history, related items). */
  [enriched: string]: unknown;
}
