/** What an appeal job's view shows of the appeal beyond the job's own request. */
export interface JobAppealDetails {
  /** Who appealed: readable even once their personal data was erased (the ids are the subject's). */
  appellant: { id: string; typeId: string };
  /** What they wrote; null when they wrote nothing, or once it was erased. */
  appealReason: string | null;
  /** Their personal data was erased: the reason is gone. */
  erased: boolean;
}

/**
 * The appeal behind an appeal job (JOB_APPEALS): a port the review module declares for its job
 * view and the appeals module provides, since appeals depends on review and not the other way
 * round. Optional: without it the view shows the appeal's request alone, with no appellant,
 * reason or strikes (docs/architecture.md, "Ports").
 */
export interface JobAppeals {
  /** Null: no such appeal in the organization. */
  details(orgId: string, appealId: string): Promise<JobAppealDetails | null>;
}

export const JOB_APPEALS = Symbol('JobAppeals');
