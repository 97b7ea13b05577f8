import { Inject, Module, type OnModuleInit } from '@nestjs/common';
import { CatalogModule } from '#warden/catalog';
import { WARDEN_CONFIG, type WardenConfig } from '#warden/platform';
import { ProjectionHost } from '#warden/storage';
import { auditChainProjection } from './chain/audit-chain.projection.js';
import { AuditCheckpointer } from './chain/audit-checkpointer.js';
import { auditCheckpointReactor } from './chain/audit-checkpoint.reactor.js';
import { AuditExporter } from './export/audit-exporter.js';
import { ExportAuditHandler } from './queries/export-audit/export-audit.handler.js';
import { GetItemHistoryHandler } from './queries/get-item-history/get-item-history.handler.js';
import { ListPublishedActionsHandler } from './queries/list-published-actions/list-published-actions.handler.js';
import { FindChildSafetyDeliveriesHandler } from './queries/find-child-safety-deliveries/find-child-safety-deliveries.handler.js';
import { FindShownStrikesHandler } from './queries/find-shown-strikes/find-shown-strikes.handler.js';
import { itemHistoryProjection } from './history/item-history.projection.js';
import { InvestigationReader } from './investigate/investigation-reader.js';
import { FindInvestigationHandler } from './queries/find-investigation/find-investigation.handler.js';
import { InvestigateItemHandler } from './queries/investigate-item/investigate-item.handler.js';
import { InvestigateUserHandler } from './queries/investigate-user/investigate-user.handler.js';

/**
 * Compliance: the tamper-evident audit chain with its signed checkpoints (docs/audit.md), the
 * export and its verifier, item and user histories, Investigate (docs/console.md, "Investigate"). GDPR deletion is the erasure module's. The
 * routes are AuditHttpModule's; the chain and the checkpoints run in the worker.
 */
@Module({
  imports: [CatalogModule],
  providers: [
    AuditCheckpointer,
    AuditExporter,
    ExportAuditHandler,
    GetItemHistoryHandler,
    ListPublishedActionsHandler,
    FindChildSafetyDeliveriesHandler,
    FindShownStrikesHandler,
    InvestigationReader,
    InvestigateItemHandler,
    InvestigateUserHandler,
    FindInvestigationHandler,
  ],
  exports: [AuditExporter],
})
export class AuditModule implements OnModuleInit {
  constructor(
    @Inject(ProjectionHost) private readonly projections: ProjectionHost,
    private readonly checkpointer: AuditCheckpointer,
    @Inject(WARDEN_CONFIG) private readonly config: Pick<WardenConfig, 'auditCheckpointSeconds'>,
  ) {}

  onModuleInit(): void {
    this.projections.register(auditChainProjection);
    this.projections.register(itemHistoryProjection);
    this.projections.register(auditCheckpointReactor({ checkpointer: this.checkpointer, everyMs: this.config.auditCheckpointSeconds * 1000 }));
  }
}
