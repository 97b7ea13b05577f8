import { Inject, Module, type OnModuleInit } from '@nestjs/common';
import { CatalogModule } from '#warden/catalog';
import { ProjectionHost } from '#warden/storage';
import { RequestGdprDeletionHandler } from './commands/request-gdpr-deletion/request-gdpr-deletion.handler.js';
import { gdprDeletionReactor } from './gdpr-deletion.reactor.js';
import { UserEraser } from './user-eraser.js';
import { subjectRecordsProjection } from './projections/subject-records.projection.js';
import { GetGdprDeletionHandler } from './queries/get-gdpr-deletion/get-gdpr-deletion.handler.js';

/**
 * GDPR deletion by crypto-shredding (docs/gdpr.md): the request, its stream
 * and the reactor that erases the user, with the index of whose items, reports and appeals are
 * where. A module of its own rather than identity's: erasing closes review jobs and checks the
 * catalog's item types, and the catalog depends on identity. The routes are ErasureHttpModule's;
 * the erasure runs in the worker.
 */
@Module({
  imports: [CatalogModule],
  providers: [RequestGdprDeletionHandler, GetGdprDeletionHandler, UserEraser],
})
export class ErasureModule implements OnModuleInit {
  constructor(
    @Inject(ProjectionHost) private readonly projections: ProjectionHost,
    private readonly eraser: UserEraser,
  ) {}

  onModuleInit(): void {
    this.projections.register(subjectRecordsProjection);
    this.projections.register(gdprDeletionReactor({ eraser: this.eraser }));
  }
}
