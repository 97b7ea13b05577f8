import { type DynamicModule, Inject, Module, type OnModuleInit } from '@nestjs/common';
import { PersonalDataPolicy } from '#warden/eventstore';
import { CatalogModule } from '#warden/catalog';
import { SubmitItemsHandler } from './commands/submit-items/submit-items.handler.js';
import { SubmitItemsHttpController } from './commands/submit-items/submit-items.http.controller.js';

/** Item submission: validation against the catalog, and ItemSubmitted events. */
@Module({})
export class IngestionModule implements OnModuleInit {
  constructor(
    @Inject(PersonalDataPolicy) private readonly personalData: PersonalDataPolicy,
  ) {}

  static register(options: { http: boolean }): DynamicModule {
    return {
      module: IngestionModule,
      imports: [CatalogModule],
      controllers: options.http ? [SubmitItemsHttpController] : [],
      providers: [SubmitItemsHandler],
    };
  }

  onModuleInit(): void {
    // Item data is what users wrote: sealed under the subject's key from the first event.
    this.personalData.register('ItemSubmitted', { subject: (e) => e.data['subject'] as string, fields: ['data'] });
  }
}
