import { Module } from '@nestjs/common';
import { GetUserScoreHttpController } from './queries/get-user-score/get-user-score.http.controller.js';

/** The enforcement module's routes; its controllers only use the command and query buses. */
@Module({
  controllers: [
    GetUserScoreHttpController,
  ],
})
export class EnforcementHttpModule {}
