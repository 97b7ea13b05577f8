export { RulesModule, type RulesOptions } from './rules.module.js';
export { RetroactRuleCommand } from './commands/retroact-rule/retroact-rule.command.js';
export { BacktestRuleCommand } from './commands/backtest-rule/backtest-rule.command.js';
export type { RunReport } from './evaluation/item-history.js';
export * from './contracts.js';
// The review routing port the engine provides (docs/architecture.md, "Ports").
export {
  REVIEW_ROUTING,
  type ReviewRouting,
  type RoutingRequest,
  type Route,
  type RoutingCatalog,
  type RoutingContent,
  type RoutingInputs,
  type RoutingReport,
  type RoutedQueue,
  NOTHING_READ,
  routedQueue,
  routingInputs,
} from './routing/review-routing.port.js';
export { routingContentAt } from './routing/routing-content.js';
// The extension contract: what a module that adds signals or media hashing implements.
export { RULE_SIGNALS, type RuleSignals } from './evaluation/rules-extension.js';
export { MEDIA_HASHER, type HashedMedia, type MediaHasher } from './evaluation/media-hasher.js';
export { USER_STANDING, type UserStanding } from './evaluation/user-standing.js';
export { ListEvaluationsQuery, type EvaluationView } from './queries/list-evaluations/list-evaluations.query.js';
// The partial-items extension: where the engine gets the whole of a partial item (docs/partial-items.md).
export { PARTIAL_ITEMS, type PartialItemSource, type PartialFetchOutcome, type PartialFetchReason, type FetchedItem } from './evaluation/partial-items.js';
