import { Module } from '@nestjs/common';
import { SubmitItemsHttpController } from './commands/submit-items/submit-items.http.controller.js';
import { SubmitReportHttpController } from './commands/submit-report/submit-report.http.controller.js';

/**
 * Item and report submission's routes of the customer API.
 * Its controllers only use the command and query buses; the handlers are IngestionModule's,
 * composed by every process, while this module is composed only where HTTP is served.
 */
@Module({ controllers: [SubmitItemsHttpController, SubmitReportHttpController] })
export class IngestionHttpModule {}
