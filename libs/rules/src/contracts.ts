/**
 * The rules engine's framework-free contracts: the events it owns, declared once
 * (docs/architecture.md, "Events"), their personal-data rules, and the framework-free part of its
 * extension contract (what a signal or a media hasher sees and gives). Other modules' code (their
 * `domain/` too) imports these from `#warden/rules/contracts`; the module's index re-exports them.
 *
 * The actions an evaluation publishes are its consumers' contracts: ActionCallbackRequested the
 * callbacks module's, ReviewEnqueueRequested review's.
 */
import { subjectField, type PersonalDataRules } from '#warden/kernel';

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
export type { ReportRouted, ReportRoutingEvent } from './domain/report-routing.events.js';
export { dailyActionsStream, evaluationStream, reportRoutingStream } from './domain/evaluation.streams.js';
/** The reactor that routes user reports (its checkpoint: how far the log's reports are routed). */
export const REPORT_ROUTING_REACTOR = 'report-routing';

export const RULES_PERSONAL_DATA: PersonalDataRules = {
  // What the conditions saw is the item's data seen through a rule, and the content's key a digest
  // of it: sealed under the item's subject (an erasure breaks the run of identical content).
  ItemEvaluated: { subject: (e) => e.data['subject'] as string, fields: ['conditionValues', 'content'] },
  // A routed report carries the reporter's reason on into the job: sealed under the reporter's key.
  ReportRouted: { subject: subjectField, fields: ['reason'] },
};
