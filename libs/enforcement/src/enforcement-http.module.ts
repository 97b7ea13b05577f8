import { Module } from '@nestjs/common';
import { GetUserScoreHttpController } from './queries/get-user-score/get-user-score.http.controller.js';
import { ExecuteActionHttpController } from './commands/execute-action/execute-action.http.controller.js';
import { RequestBulkActionHttpController } from './commands/request-bulk-action/request-bulk-action.http.controller.js';
import { CancelBulkActionHttpController } from './commands/cancel-bulk-action/cancel-bulk-action.http.controller.js';
import { GetBulkActionHttpController } from './queries/get-bulk-action/get-bulk-action.http.controller.js';
import { PreviewBulkActionHttpController } from './queries/preview-bulk-action/preview-bulk-action.http.controller.js';

/** The enforcement module's routes; its controllers only use the command and query buses. */
@Module({
  controllers: [
    GetUserScoreHttpController,
    ExecuteActionHttpController,
    // Before the GET of one operation: `preview` is a POST, but keep the literal paths first anyway.
    PreviewBulkActionHttpController,
    RequestBulkActionHttpController,
    GetBulkActionHttpController,
    CancelBulkActionHttpController,
  ],
})
export class EnforcementHttpModule {}
