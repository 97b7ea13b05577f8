import { Inject, Module, type OnModuleInit } from '@nestjs/common';
import { PersonalDataPolicy } from '#warden/eventstore';
import { CatalogModule } from '#warden/catalog';
import { SubmitItemsHandler } from './commands/submit-items/submit-items.handler.js';

/** Item submission: validation against the catalog, and ItemSubmitted events; the route is IngestionHttpModule's. */
@Module({
  imports: [CatalogModule],
  providers: [SubmitItemsHandler],
})
export class IngestionModule implements OnModuleInit {
  constructor(@Inject(PersonalDataPolicy) private readonly personalData: PersonalDataPolicy) {}

  onModuleInit(): void {
    // Item data is what users wrote: sealed under the subject's key from the first event.
    this.personalData.register('ItemSubmitted', { subject: (e) => e.data['subject'] as string, fields: ['data'] });
  }
}
