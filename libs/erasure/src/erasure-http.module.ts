import { Module } from '@nestjs/common';
import { RequestGdprDeletionHttpController } from './commands/request-gdpr-deletion/request-gdpr-deletion.http.controller.js';
import { GetGdprDeletionHttpController } from './queries/get-gdpr-deletion/get-gdpr-deletion.http.controller.js';

/** The erasure module's routes; its controllers only use the command and query buses. */
@Module({
  controllers: [RequestGdprDeletionHttpController, GetGdprDeletionHttpController],
})
export class ErasureHttpModule {}
