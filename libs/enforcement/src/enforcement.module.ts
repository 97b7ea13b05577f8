import { type DynamicModule, Inject, Module, type OnModuleInit, Optional } from '@nestjs/common';
import { ACTION_DELIVERIES, type ActionDeliveries } from '#warden/callbacks';
import { CatalogModule } from '#warden/catalog';
import { PersonalDataPolicy } from '#warden/eventstore';
import { ProjectionHost } from '#warden/storage';
import { appealReversalReactor } from './strikes/appeal-reversal.reactor.js';
import { StrikeApplier } from './strikes/strike-applier.js';
import { actionsReactor } from './strikes/actions.reactor.js';
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
import { ENFORCEMENT_PERSONAL_DATA } from './contracts.js';

/**
 * Enforcement: user strikes and their thresholds, user scores, actions executed through
 * POST /api/v1/actions, and bulk actions (the same execution over many items, in the background). The routes are EnforcementHttpModule's. Its ports (docs/architecture.md,
 * "Ports"): USER_STRIKES and USER_SCORE, its own, for the review module; callbacks' ACTION_DELIVERIES, given through register(); and the
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
    @Inject(PersonalDataPolicy) private readonly personalData: PersonalDataPolicy,
    private readonly strikeApplier: StrikeApplier,
    private readonly bulkActions: BulkActionRunner,
    @Optional() @Inject(ACTION_DELIVERIES) private readonly deliveries?: ActionDeliveries,
  ) {}

  /**
   * With the module that provides ACTION_DELIVERIES (callbacks, registered with
   * `actionsThroughPort`): every published action's callback is handed to it once the action's
   * strikes are in. The same module object is then given to every module that imports this one.
   */
  static register(options: { deliveries?: DynamicModule }): DynamicModule {
    return { module: EnforcementModule, imports: options.deliveries ? [options.deliveries] : [] };
  }

  onModuleInit(): void {
    // The rules of the events this module owns, declared beside them (contracts.ts).
    this.personalData.registerAll(ENFORCEMENT_PERSONAL_DATA);
    this.projections.register(actionsReactor({ applier: this.strikeApplier, ...(this.deliveries && { deliveries: this.deliveries }) }));
    this.projections.register(userScoresProjection);
    this.projections.register(appealReversalReactor({ applier: this.strikeApplier }));
    this.projections.register(bulkActionsReactor({ runner: this.bulkActions }));
  }
}
