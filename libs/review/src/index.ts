export { ReviewModule, type ReviewOptions } from './review.module.js';
export * from './contracts.js';
export { GetReviewJobQuery } from './queries/get-review-job/get-review-job.query.js';
export type { ReviewJobView } from './queries/get-review-job/review-job.view.js';
export { OpenAppealJobCommand, type AppealForReview } from './commands/open-appeal-job/open-appeal-job.command.js';
// The port its job view declares and the appeals module provides (docs/architecture.md, "Ports").
export { JOB_APPEALS, type JobAppeals, type JobAppealDetails } from './job-appeals.port.js';
export { CloseErasedUserJobsCommand } from './commands/close-erased-user-jobs/close-erased-user-jobs.command.js';
