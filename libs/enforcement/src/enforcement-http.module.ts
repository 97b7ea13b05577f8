import { Module } from '@nestjs/common';
import { GetUserScoreHttpController } from './queries/get-user-score/get-user-score.http.controller.js';
import { ExecuteActionHttpController } from './commands/execute-action/execute-action.http.controller.js';

/** The enforcement module's routes; its controllers only use the command and query buses. */
@Module({
  controllers: [GetUserScoreHttpController, ExecuteActionHttpController],
})
export class EnforcementHttpModule {}
