export { RulesModule, type RulesOptions } from './rules.module.js';
export { RetroactRuleCommand } from './commands/retroact-rule/retroact-rule.command.js';
export { BacktestRuleCommand } from './commands/backtest-rule/backtest-rule.command.js';
export type { RunReport } from './evaluation/item-history.js';
export * from './contracts.js';
export {
  RouteForReviewQuery,
  type Route,
  type RoutingContent,
  type RoutingReport,
  type RoutingReportRequest,
} from './queries/route-for-review/route-for-review.query.js';
// The extension contract: what a module that adds signals or media hashing implements.
export { RULE_SIGNALS, type RuleSignals } from './evaluation/rules-extension.js';
export { MEDIA_HASHER, type MediaHasher } from './evaluation/media-hasher.js';
export { ListEvaluationsQuery, type EvaluationView } from './queries/list-evaluations/list-evaluations.query.js';
export { GetUserStrikeCountQuery } from './queries/get-user-strike-count/get-user-strike-count.query.js';
export { ApplyActionStrikesCommand } from './commands/apply-action-strikes/apply-action-strikes.command.js';
export { GetUserScoreQuery } from './queries/get-user-score/get-user-score.query.js';
export { GetUserStrikeHistoryQuery, type UserStrikeHistory, type StrikeEntry } from './queries/get-user-strike-history/get-user-strike-history.query.js';
// The partial-items extension: where the engine gets the whole of a partial item (docs/partial-items.md).
export { PARTIAL_ITEMS, type PartialItemSource, type PartialFetchOutcome, type PartialFetchReason, type FetchedItem } from './evaluation/partial-items.js';
