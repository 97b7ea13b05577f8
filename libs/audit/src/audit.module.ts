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
import { itemHistoryProjection } from './history/item-history.projection.js';
import { RequestGdprDeletionHandler } from './commands/request-gdpr-deletion/request-gdpr-deletion.handler.js';
import { gdprDeletionReactor } from './erasure/gdpr-deletion.reactor.js';
import { UserEraser } from './erasure/user-eraser.js';
import { subjectRecordsProjection } from './projections/subject-records.projection.js';
import { GetGdprDeletionHandler } from './queries/get-gdpr-deletion/get-gdpr-deletion.handler.js';

/**
 * Compliance: GDPR deletion by crypto-shredding (docs/architecture.md, "Personal data") and the tamper-evident audit
 * chain with its signed checkpoints (docs/audit.md). The routes are AuditHttpModule's; the
 * erasure, the chain and the checkpoints run in the worker.
 */
@Module({
  imports: [CatalogModule],
  providers: [
    RequestGdprDeletionHandler,
    GetGdprDeletionHandler,
    UserEraser,
    AuditCheckpointer,
    AuditExporter,
    ExportAuditHandler,
    GetItemHistoryHandler,
    ListPublishedActionsHandler,
  ],
  exports: [AuditExporter],
})
export class AuditModule implements OnModuleInit {
  constructor(
    @Inject(ProjectionHost) private readonly projections: ProjectionHost,
    private readonly eraser: UserEraser,
    private readonly checkpointer: AuditCheckpointer,
    @Inject(WARDEN_CONFIG) private readonly config: Pick<WardenConfig, 'auditCheckpointSeconds'>,
  ) {}

  onModuleInit(): void {
    this.projections.register(subjectRecordsProjection);
    this.projections.register(gdprDeletionReactor({ eraser: this.eraser }));
    this.projections.register(auditChainProjection);
    this.projections.register(itemHistoryProjection);
    this.projections.register(auditCheckpointReactor({ checkpointer: this.checkpointer, everyMs: this.config.auditCheckpointSeconds * 1000 }));
  }
}
