export { RulesModule } from './rules.module.js';
export { SIGNAL_REGISTRY, ItemEvaluator } from './evaluation/item-evaluator.js';
export type { Signal, SignalContext, EvaluatedItem, Outcome, MediaResult } from './domain/evaluation.model.js';
export { MEDIA_HASHER, type MediaHasher } from './evaluation/media-hasher.js';
export type {
  ActionCallbackRequested,
  ReviewEnqueueRequested,
  ItemEvaluated,
  Evaluation,
  Environment,
} from './domain/evaluation.events.js';
export { decodeEvaluation } from './domain/evaluation.events.js';
export { SignalRegistry } from './domain/signal-registry.js';
export { CatalogSnapshots, type CatalogSnapshot } from './evaluation/catalog-snapshots.js';
export { RetroactRuleCommand } from './commands/retroact-rule/retroact-rule.command.js';
export { BacktestRuleCommand } from './commands/backtest-rule/backtest-rule.command.js';
export type { RunReport } from './evaluation/item-history.js';
