import { Inject, Module, type OnModuleInit } from '@nestjs/common';
import { PersonalDataPolicy } from '#warden/eventstore';
import { CatalogModule } from '#warden/catalog';
import { INGESTION_PERSONAL_DATA } from './contracts.js';
import { SubmitItemsHandler } from './commands/submit-items/submit-items.handler.js';
import { SubmitReportHandler } from './commands/submit-report/submit-report.handler.js';

/**
 * What customers submit: items and user reports, checked against the catalog and recorded
 * (ItemSubmitted, ReportSubmitted); the routes are IngestionHttpModule's.
 */
@Module({
  imports: [CatalogModule],
  providers: [SubmitItemsHandler, SubmitReportHandler],
})
export class IngestionModule implements OnModuleInit {
  constructor(@Inject(PersonalDataPolicy) private readonly personalData: PersonalDataPolicy) {}

  onModuleInit(): void {
    // The rules of the events this module owns, declared beside them (contracts.ts).
    this.personalData.registerAll(INGESTION_PERSONAL_DATA);
  }
}
