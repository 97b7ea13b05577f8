import { Module } from '@nestjs/common';
import { CatalogModule } from '#warden/catalog';

/**
 * Enforcement: user strikes and their thresholds, user scores, and actions executed through
 * POST /api/v1/actions. The routes are EnforcementHttpModule's.
 */
@Module({
  imports: [CatalogModule],
  providers: [],
})
export class EnforcementModule {}
