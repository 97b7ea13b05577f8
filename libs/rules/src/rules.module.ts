import { type DynamicModule, Inject, Module, type OnModuleInit } from '@nestjs/common';
import { ProjectionHost } from '#warden/platform';
import { BacktestRuleHandler } from './commands/backtest-rule/backtest-rule.handler.js';
import { RetroactRuleHandler } from './commands/retroact-rule/retroact-rule.handler.js';
import { SubmitContentHttpController } from './commands/submit-content/submit-content.http.controller.js';
import { SignalRegistry } from './domain/signal-registry.js';
import { registerBuiltinSignals } from './domain/signals/builtin-signals.js';
import { CatalogSnapshots } from './evaluation/catalog-snapshots.js';
import { DailyActionCap } from './evaluation/daily-action-cap.js';
import { evaluationReactor } from './evaluation/evaluation-reactor.js';
import { ItemEvaluator, SIGNAL_REGISTRY } from './evaluation/item-evaluator.js';
import { itemEvaluationsProjection } from './projections/item-evaluations.projection.js';
import { ListEvaluationsHandler } from './queries/list-evaluations/list-evaluations.handler.js';
import { ListEvaluationsHttpController } from './queries/list-evaluations/list-evaluations.http.controller.js';

/** The rules engine: evaluation of submitted items, action publication, explainability. */
@Module({})
export class RulesModule implements OnModuleInit {
  constructor(
    @Inject(ProjectionHost) private readonly projections: ProjectionHost,
    private readonly evaluator: ItemEvaluator,
  ) {}

  static register(options: { http: boolean }): DynamicModule {
    return {
      module: RulesModule,
      // Global: the hashing module registers its signals into the exported registry.
      global: true,
      controllers: options.http ? [ListEvaluationsHttpController, SubmitContentHttpController] : [],
      providers: [
        { provide: SIGNAL_REGISTRY, useFactory: () => registerBuiltinSignals(new SignalRegistry()) },
        CatalogSnapshots,
        DailyActionCap,
        ItemEvaluator,
        ListEvaluationsHandler,
        RetroactRuleHandler,
        BacktestRuleHandler,
      ],
      exports: [SIGNAL_REGISTRY, ItemEvaluator, CatalogSnapshots],
    };
  }

  onModuleInit(): void {
    this.projections.register(evaluationReactor(this.evaluator));
    this.projections.register(itemEvaluationsProjection);
  }
}
