import { type DynamicModule, Inject, Module, type OnModuleInit } from '@nestjs/common';
import { PersonalDataPolicy } from '#warden/eventstore';
import { ProjectionHost } from '#warden/platform';
import { SubmitItemsHandler } from './commands/submit-items/submit-items.handler.js';
import { SubmitItemsHttpController } from './commands/submit-items/submit-items.http.controller.js';
import { creatorSubmissionsProjection } from './projections/creator-submissions.projection.js';

/** Item submission: validation against the catalog, and ItemSubmitted events. */
@Module({})
export class IngestionModule implements OnModuleInit {
  constructor(
    @Inject(ProjectionHost) private readonly projections: ProjectionHost,
    @Inject(PersonalDataPolicy) private readonly personalData: PersonalDataPolicy,
  ) {}

  static register(options: { http: boolean }): DynamicModule {
    return {
      module: IngestionModule,
      controllers: options.http ? [SubmitItemsHttpController] : [],
      providers: [SubmitItemsHandler],
    };
  }

  onModuleInit(): void {
    this.projections.register(creatorSubmissionsProjection);
    // Item data is what users wrote: sealed under the subject's key from the first event.
    this.personalData.register('ItemSubmitted', { subject: (e) => e.data['subject'] as string, fields: ['data'] });
  }
}
