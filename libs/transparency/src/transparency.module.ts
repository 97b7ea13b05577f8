import { Inject, Module, type OnModuleInit } from '@nestjs/common';
import { CatalogModule } from '#warden/catalog';
import { ProjectionHost } from '#warden/storage';
import { transparencyProjection } from './projections/transparency.projection.js';
import { ListStatementsHandler } from './queries/list-statements/list-statements.handler.js';
import { TransparencyReportHandler } from './queries/transparency-report/transparency-report.handler.js';

/**
 * DSA statements of reasons and transparency reports (docs/transparency.md): a projection of the
 * facts every module's events record, rendered with the catalog's DSA mapping when read. The
 * routes are TransparencyHttpModule's.
 */
@Module({
  imports: [CatalogModule],
  providers: [ListStatementsHandler, TransparencyReportHandler],
})
export class TransparencyModule implements OnModuleInit {
  constructor(@Inject(ProjectionHost) private readonly projections: ProjectionHost) {}

  onModuleInit(): void {
    this.projections.register(transparencyProjection);
  }
}
