import { Module } from '@nestjs/common';
import { ClaimNextJobHttpController } from './commands/claim-next-job/claim-next-job.http.controller.js';
import { DecideJobHttpController } from './commands/decide-job/decide-job.http.controller.js';
import { ListChildSafetyReportsHttpController } from './queries/list-child-safety-reports/list-child-safety-reports.http.controller.js';

/**
 * The review module's routes: the customer API's reports and the console's queues and jobs. Its
 * controllers only use the command and query buses; the handlers are ReviewModule's.
 */
@Module({
  controllers: [ClaimNextJobHttpController, DecideJobHttpController, ListChildSafetyReportsHttpController],
})
export class ReviewHttpModule {}
