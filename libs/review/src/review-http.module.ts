import { Module } from '@nestjs/common';
import { ClaimNextJobHttpController } from './commands/claim-next-job/claim-next-job.http.controller.js';
import { SubmitReportHttpController } from './commands/submit-report/submit-report.http.controller.js';

/**
 * The review module's routes: the customer API's reports and the console's queues and jobs. Its
 * controllers only use the command and query buses; the handlers are ReviewModule's.
 */
@Module({
  controllers: [ClaimNextJobHttpController, SubmitReportHttpController],
})
export class ReviewHttpModule {}
