export { ReviewModule } from './review.module.js';
export type * from './domain/review-job.events.js';
export { DECISION_TYPES, ENQUEUE_SOURCES } from './domain/review-job.events.js';
export { reviewJobStream, reportStream } from './domain/review.streams.js';
export type { ReportSubmitted, ContextItem } from './domain/report.events.js';
export { GetReviewJobQuery } from './queries/get-review-job/get-review-job.query.js';
export type { ReviewJobView } from './queries/get-review-job/review-job.view.js';
export { OpenAppealJobCommand, type AppealForReview } from './commands/open-appeal-job/open-appeal-job.command.js';
export { GetJobAppealQuery, type JobAppealDetails } from './queries/get-job-appeal/get-job-appeal.query.js';
