import { Inject, Module, type OnModuleInit } from '@nestjs/common';
import { CatalogModule } from '#warden/catalog';
import { ProjectionHost } from '#warden/storage';
import { RequestGdprDeletionHandler } from './commands/request-gdpr-deletion/request-gdpr-deletion.handler.js';
import { gdprDeletionReactor } from './erasure/gdpr-deletion.reactor.js';
import { UserEraser } from './erasure/user-eraser.js';
import { subjectRecordsProjection } from './projections/subject-records.projection.js';
import { GetGdprDeletionHandler } from './queries/get-gdpr-deletion/get-gdpr-deletion.handler.js';

/**
 * Compliance: GDPR deletion by crypto-shredding (DESIGN.md section 3). The routes are
 * AuditHttpModule's; the erasure runs in the worker (a reactor).
 */
@Module({
  imports: [CatalogModule],
  providers: [RequestGdprDeletionHandler, GetGdprDeletionHandler, UserEraser],
})
export class AuditModule implements OnModuleInit {
  constructor(
    @Inject(ProjectionHost) private readonly projections: ProjectionHost,
    private readonly eraser: UserEraser,
  ) {}

  onModuleInit(): void {
    this.projections.register(subjectRecordsProjection);
    this.projections.register(gdprDeletionReactor({ eraser: this.eraser }));
  }
}
