import { Module } from '@nestjs/common';
import { ExportAuditHttpController } from './queries/export-audit/export-audit.http.controller.js';
import { GetItemHistoryHttpController } from './queries/get-item-history/get-item-history.http.controller.js';
import { InvestigateHttpController } from './queries/investigate-item/investigate-item.http.controller.js';

/** The audit module's routes; its controllers only use the command and query buses. */
@Module({
  controllers: [ExportAuditHttpController, GetItemHistoryHttpController, InvestigateHttpController],
})
export class AuditHttpModule {}
