import { Inject, Module, type OnModuleInit } from '@nestjs/common';
import { CatalogModule } from '#warden/catalog';
import { ProjectionHost } from '#warden/storage';
import { ApplyActionStrikesHandler } from './commands/apply-action-strikes/apply-action-strikes.handler.js';
import { appealReversalReactor } from './strikes/appeal-reversal.reactor.js';
import { GetUserStrikeCountHandler } from './queries/get-user-strike-count/get-user-strike-count.handler.js';
import { StrikeApplier } from './strikes/strike-applier.js';
import { strikesReactor } from './strikes/strikes.reactor.js';
import { GetUserScoreHandler } from './queries/get-user-score/get-user-score.handler.js';
import { GetUserStrikeHistoryHandler } from './queries/get-user-strike-history/get-user-strike-history.handler.js';
import { userScoresProjection } from './scores/user-scores.projection.js';
import { ExecuteActionHandler } from './commands/execute-action/execute-action.handler.js';

/**
 * Enforcement: user strikes and their thresholds, user scores, and actions executed through
 * POST /api/v1/actions. The routes are EnforcementHttpModule's.
 */
@Module({
  imports: [CatalogModule],
  providers: [StrikeApplier, GetUserStrikeCountHandler, GetUserScoreHandler, ApplyActionStrikesHandler, ExecuteActionHandler, GetUserStrikeHistoryHandler],
})
export class EnforcementModule implements OnModuleInit {
  constructor(
    @Inject(ProjectionHost) private readonly projections: ProjectionHost,
    private readonly strikeApplier: StrikeApplier,
  ) {}

  onModuleInit(): void {
    this.projections.register(strikesReactor({ applier: this.strikeApplier }));
    this.projections.register(userScoresProjection);
    this.projections.register(appealReversalReactor({ applier: this.strikeApplier }));
  }
}
