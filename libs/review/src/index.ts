export { ReviewModule } from './review.module.js';
export * from './contracts.js';
export { GetReviewJobQuery } from './queries/get-review-job/get-review-job.query.js';
export type { ReviewJobView } from './queries/get-review-job/review-job.view.js';
export { OpenAppealJobCommand, type AppealForReview } from './commands/open-appeal-job/open-appeal-job.command.js';
export { GetJobAppealQuery, type JobAppealDetails } from './queries/get-job-appeal/get-job-appeal.query.js';
export { CloseErasedUserJobsCommand } from './commands/close-erased-user-jobs/close-erased-user-jobs.command.js';
