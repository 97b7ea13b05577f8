import { Query } from '@nestjs/cqrs';

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
 * The appeal behind an appeal job, answered by the appeals module (declared here so that review,
 * which appeals depends on, need not depend on appeals). Null: no such appeal in the organization.
 */
export class GetJobAppealQuery extends Query<JobAppealDetails | null> {
  constructor(
    readonly orgId: string,
    readonly appealId: string,
  ) {
    super();
  }
}
