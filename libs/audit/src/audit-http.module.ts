import { Module } from '@nestjs/common';
import { RequestGdprDeletionHttpController } from './commands/request-gdpr-deletion/request-gdpr-deletion.http.controller.js';
import { GetGdprDeletionHttpController } from './queries/get-gdpr-deletion/get-gdpr-deletion.http.controller.js';
import { ExportAuditHttpController } from './queries/export-audit/export-audit.http.controller.js';
import { GetItemHistoryHttpController } from './queries/get-item-history/get-item-history.http.controller.js';

/** The audit module's routes; its controllers only use the command and query buses. */
@Module({
  controllers: [RequestGdprDeletionHttpController, GetGdprDeletionHttpController, ExportAuditHttpController, GetItemHistoryHttpController],
})
export class AuditHttpModule {}
