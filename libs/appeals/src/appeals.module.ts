import { Module } from '@nestjs/common';
import { CatalogModule } from '#warden/catalog';

/**
 * Appeals: POST /api/v1/report/appeal, appeal review jobs and their decisions, and the appeal
 * decision callback. The routes are AppealsHttpModule's.
 */
@Module({
  imports: [CatalogModule],
  providers: [],
})
export class AppealsModule {}
