import { Module } from '@nestjs/common';
import { SubmitAppealHttpController } from './commands/submit-appeal/submit-appeal.http.controller.js';

/** The appeals module's routes; its controllers only use the command and query buses. */
@Module({
  controllers: [SubmitAppealHttpController],
})
export class AppealsHttpModule {}
