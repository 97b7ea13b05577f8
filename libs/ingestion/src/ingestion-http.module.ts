import { Module } from '@nestjs/common';
import { SubmitItemsHttpController } from './commands/submit-items/submit-items.http.controller.js';

/**
 * Item submission's route of the customer API.
 * Its controllers only use the command and query buses; the handlers are IngestionModule's,
 * composed by every process, while this module is composed only where HTTP is served.
 */
@Module({ controllers: [SubmitItemsHttpController] })
export class IngestionHttpModule {}
