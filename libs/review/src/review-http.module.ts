import { Module } from '@nestjs/common';
import { ClaimNextJobHttpController } from './commands/claim-next-job/claim-next-job.http.controller.js';
import { DefineQueueHttpController } from './commands/define-queue/define-queue.http.controller.js';
import { ListReviewQueuesHttpController } from './queries/list-review-queues/list-review-queues.http.controller.js';
import { ListReviewJobsHttpController } from './queries/list-review-jobs/list-review-jobs.http.controller.js';
import { GetReviewJobHttpController } from './queries/get-review-job/get-review-job.http.controller.js';
import { LoadFullItemHttpController } from './commands/load-full-item/load-full-item.http.controller.js';
import { RenewJobLockHttpController } from './commands/renew-job-lock/renew-job-lock.http.controller.js';
import { ReleaseJobLockHttpController } from './commands/release-job-lock/release-job-lock.http.controller.js';
import { SkipJobHttpController } from './commands/skip-job/skip-job.http.controller.js';
import { TakeBackJobHttpController } from './commands/take-back-job/take-back-job.http.controller.js';
import { AssignJobHttpController } from './commands/assign-job/assign-job.http.controller.js';
import { DecideJobHttpController } from './commands/decide-job/decide-job.http.controller.js';
import { ListChildSafetyReportsHttpController } from './queries/list-child-safety-reports/list-child-safety-reports.http.controller.js';

/**
 * The review module's routes: the console's queues and jobs. Its
 * controllers only use the command and query buses; the handlers are ReviewModule's.
 */
@Module({
  controllers: [
    ClaimNextJobHttpController,
    DefineQueueHttpController,
    ListReviewQueuesHttpController,
    ListReviewJobsHttpController,
    GetReviewJobHttpController,
    LoadFullItemHttpController,
    RenewJobLockHttpController,
    ReleaseJobLockHttpController,
    SkipJobHttpController,
    TakeBackJobHttpController,
    AssignJobHttpController,
    DecideJobHttpController,
    ListChildSafetyReportsHttpController,
  ],
})
export class ReviewHttpModule {}
