import { Module } from '@nestjs/common';
import { SubmitAppealHttpController } from './commands/submit-appeal/submit-appeal.http.controller.js';
import { AppealsReportHttpController } from './queries/appeals-report/appeals-report.http.controller.js';

/** The appeals module's routes; its controllers only use the command and query buses. */
@Module({
  controllers: [SubmitAppealHttpController, AppealsReportHttpController],
})
export class AppealsHttpModule {}
