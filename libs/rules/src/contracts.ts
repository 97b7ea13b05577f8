/**
 * The rules engine's framework-free contracts: the events it owns, declared once
 * (docs/architecture.md, "Events"), their personal-data rules, and the framework-free part of its
 * extension contract (what a signal or a media hasher sees and gives). Other modules' code (their
 * `domain/` too) imports these from `#warden/rules/contracts`; the module's index re-exports them.
 *
 * The actions an evaluation publishes are its consumers' contracts: ActionCallbackRequested the
 * callbacks module's, ReviewEnqueueRequested review's.
 */
import type { PersonalDataRules } from '#warden/kernel';

export type {
  Environment,
  Evaluation,
  EvaluationEvent,
  ItemEvaluated,
  ItemRef,
  PublishedAction,
  RuleDailyActionCounted,
  RuleResult,
  StoredConditionRecord,
  StoredConditionValue,
  StoredRuleResult,
} from './domain/evaluation.events.js';
export { decodeEvaluation } from './domain/evaluation.events.js';
export type { Signal, SignalContext, EvaluatedItem, Outcome, MediaResult } from './domain/evaluation.model.js';
export { dailyActionsStream, evaluationStream } from './domain/evaluation.streams.js';

export const RULES_PERSONAL_DATA: PersonalDataRules = {
  // What the conditions saw is the item's data seen through a rule: sealed under the item's subject.
  ItemEvaluated: { subject: (e) => e.data['subject'] as string, fields: ['conditionValues'] },
};
