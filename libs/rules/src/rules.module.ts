import { type DynamicModule, Inject, Module, type OnModuleInit, type Type } from '@nestjs/common';
import { CatalogModule } from '#warden/catalog';
import { PersonalDataPolicy } from '#warden/eventstore';
import { UpcasterRegistry } from '#warden/kernel';
import { ProjectionHost } from '#warden/storage';
import { RULES_PERSONAL_DATA } from './contracts.js';
import { BacktestRuleHandler } from './commands/backtest-rule/backtest-rule.handler.js';
import { RetroactRuleHandler } from './commands/retroact-rule/retroact-rule.handler.js';
import { SubmitContentHandler } from './commands/submit-content/submit-content.handler.js';
import { RULES_UPCASTERS } from './domain/evaluation.upcasters.js';
import { SignalRegistry } from './domain/signal-registry.js';
import { registerBuiltinSignals } from './domain/signals/builtin-signals.js';
import { CatalogSnapshots } from './evaluation/catalog-snapshots.js';
import { DailyActionCap } from './evaluation/daily-action-cap.js';
import { ContentKeyReader } from './evaluation/content-key-reader.js';
import { EvaluationRecorder } from './evaluation/evaluation-recorder.js';
import { evaluationReactor } from './evaluation/evaluation-reactor.js';
import { ItemEvaluator, SIGNAL_REGISTRY } from './evaluation/item-evaluator.js';
import { RegexPool } from './evaluation/regex-pool.js';
import { SignalContextFactory } from './evaluation/signal-context.factory.js';
import { RULE_SIGNALS, type RuleSignals } from './evaluation/rules-extension.js';
import { creatorSubmissionsProjection } from './projections/creator-submissions.projection.js';
import { itemEvaluationsProjection } from './projections/item-evaluations.projection.js';
import { ruleActivityProjection } from './projections/rule-activity.projection.js';
import { ListRulesHandler } from './queries/list-rules/list-rules.handler.js';
import { ListEvaluationsHandler } from './queries/list-evaluations/list-evaluations.handler.js';
import { REVIEW_ROUTING } from './routing/review-routing.port.js';
import { RulesReviewRouting } from './routing/rules-review-routing.js';
import { ReportRouter } from './routing/report-router.js';
import { reportRoutingReactor } from './routing/report-routing.reactor.js';
import { reportCountsProjection } from './projections/report-counts.projection.js';

export interface RulesOptions {
  /**
   * Modules that extend the engine with RULE_SIGNALS, MEDIA_HASHER, PARTIAL_ITEMS and
   * USER_STANDING (see rules-extension.ts; the ports: docs/architecture.md, "Ports").
   */
  readonly extensions?: ReadonlyArray<Type<unknown> | DynamicModule>;
}

/**
 * The rules engine: evaluation of submitted items, action publication, explainability, and the
 * routing of reports and items bound for review; the routes are RulesHttpModule's.
 */
@Module({})
export class RulesModule implements OnModuleInit {
  constructor(
    @Inject(ProjectionHost) private readonly projections: ProjectionHost,
    private readonly evaluator: ItemEvaluator,
    private readonly recorder: EvaluationRecorder,
    private readonly reports: ReportRouter,
    @Inject(UpcasterRegistry) private readonly upcasters: UpcasterRegistry,
    @Inject(PersonalDataPolicy) private readonly personalData: PersonalDataPolicy,
  ) {}

  static register(options: RulesOptions): DynamicModule {
    return {
      module: RulesModule,
      imports: [CatalogModule, ...(options.extensions ?? [])],
      providers: [
        {
          provide: SIGNAL_REGISTRY,
          useFactory: (extra: RuleSignals | undefined) => {
            const registry = registerBuiltinSignals(new SignalRegistry());
            for (const signal of extra ?? []) registry.register(signal);
            return registry;
          },
          inject: [{ token: RULE_SIGNALS, optional: true }],
        },
        CatalogSnapshots,
        DailyActionCap,
        ContentKeyReader,
        { provide: RegexPool, useFactory: () => new RegexPool() },
        SignalContextFactory,
        ItemEvaluator,
        EvaluationRecorder,
        ListEvaluationsHandler,
        ListRulesHandler,
        RetroactRuleHandler,
        BacktestRuleHandler,
        SubmitContentHandler,
        RulesReviewRouting,
        ReportRouter,
        { provide: REVIEW_ROUTING, useExisting: RulesReviewRouting },
      ],
      // The review module routes items through the engine (composed in app.module.ts).
      exports: [REVIEW_ROUTING],
    };
  }

  onModuleInit(): void {
    this.upcasters.register(...RULES_UPCASTERS);
    // The rules of the events this module owns, declared beside them (contracts.ts).
    this.personalData.registerAll(RULES_PERSONAL_DATA);
    this.projections.register(evaluationReactor(this.evaluator, this.recorder));
    this.projections.register(itemEvaluationsProjection);
    this.projections.register(creatorSubmissionsProjection);
    this.projections.register(ruleActivityProjection);
    this.projections.register(reportCountsProjection);
    this.projections.register(reportRoutingReactor(this.reports));
  }
}
