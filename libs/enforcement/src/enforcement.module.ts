import { Inject, Module, type OnModuleInit } from '@nestjs/common';
import { CatalogModule } from '#warden/catalog';
import { ProjectionHost } from '#warden/storage';
import { appealReversalReactor } from './strikes/appeal-reversal.reactor.js';
import { StrikeApplier } from './strikes/strike-applier.js';
import { strikesReactor } from './strikes/strikes.reactor.js';
import { GetUserScoreHandler } from './queries/get-user-score/get-user-score.handler.js';
import { GetUserStrikesHandler } from './queries/get-user-strikes/get-user-strikes.handler.js';
import { userScoresProjection } from './scores/user-scores.projection.js';
import { ExecuteActionHandler } from './commands/execute-action/execute-action.handler.js';
import { RequestBulkActionHandler } from './commands/request-bulk-action/request-bulk-action.handler.js';
import { CancelBulkActionHandler } from './commands/cancel-bulk-action/cancel-bulk-action.handler.js';
import { GetBulkActionHandler } from './queries/get-bulk-action/get-bulk-action.handler.js';
import { PreviewBulkActionHandler } from './queries/preview-bulk-action/preview-bulk-action.handler.js';
import { BulkActionRunner } from './bulk/bulk-action-runner.js';
import { bulkActionsReactor } from './bulk/bulk-actions.reactor.js';
import { USER_STANDING, type UserStanding } from '#warden/rules';
import { USER_SCORE, USER_STRIKES } from './standing/user-standing.ports.js';
import { UserScoresReader } from './standing/user-scores.reader.js';
import { UserStrikesReader } from './standing/user-strikes.reader.js';

/**
 * Enforcement: user strikes and their thresholds, user scores, actions executed through
 * POST /api/v1/actions, and bulk actions (the same execution over many items, in the background). The routes are EnforcementHttpModule's. Its ports (docs/architecture.md,
 * "Ports"): USER_STRIKES and USER_SCORE, its own, for the review and callbacks modules; and the
 * rules engine's USER_STANDING, for which app.module.ts passes it to the engine as an extension.
 */
@Module({
  imports: [CatalogModule],
  providers: [
    StrikeApplier,
    GetUserScoreHandler,
    GetUserStrikesHandler,
    ExecuteActionHandler,
    RequestBulkActionHandler,
    CancelBulkActionHandler,
    GetBulkActionHandler,
    PreviewBulkActionHandler,
    BulkActionRunner,
    UserStrikesReader,
    UserScoresReader,
    { provide: USER_STRIKES, useExisting: UserStrikesReader },
    { provide: USER_SCORE, useExisting: UserScoresReader },
    {
      provide: USER_STANDING,
      useFactory: (strikes: UserStrikesReader, scores: UserScoresReader): UserStanding => ({
        strikeCount: (orgId, user) => strikes.count(orgId, user),
        score: (orgId, user) => scores.score(orgId, user),
      }),
      inject: [UserStrikesReader, UserScoresReader],
    },
  ],
  exports: [USER_STRIKES, USER_SCORE, USER_STANDING],
})
export class EnforcementModule implements OnModuleInit {
  constructor(
    @Inject(ProjectionHost) private readonly projections: ProjectionHost,
    private readonly strikeApplier: StrikeApplier,
    private readonly bulkActions: BulkActionRunner,
  ) {}

  onModuleInit(): void {
    this.projections.register(strikesReactor({ applier: this.strikeApplier }));
    this.projections.register(userScoresProjection);
    this.projections.register(appealReversalReactor({ applier: this.strikeApplier }));
    this.projections.register(bulkActionsReactor({ runner: this.bulkActions }));
  }
}
