import { Inject, Module, type OnModuleInit } from '@nestjs/common';
import { CatalogModule } from '#warden/catalog';
import { ProjectionHost } from '#warden/storage';
import { insightsProjection } from './projections/insights.projection.js';
import { GetInsightsHandler } from './queries/get-insights/get-insights.handler.js';

/**
 * Insights (docs/insights.md): per-day buckets projected from other modules' events, read through
 * their contracts, and the query the console's charts are drawn from. The route is InsightsHttpModule's.
 */
@Module({ imports: [CatalogModule], providers: [GetInsightsHandler] })
export class InsightsModule implements OnModuleInit {
  constructor(@Inject(ProjectionHost) private readonly projections: ProjectionHost) {}

  onModuleInit(): void {
    this.projections.register(insightsProjection);
  }
}
