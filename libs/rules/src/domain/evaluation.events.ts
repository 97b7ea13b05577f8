import type { DomainEvent } from '../../../kernel/src/index.js';
import type { Penalty } from '../../../catalog/src/index.js';
import type { ConditionRecord, Outcome } from './evaluation.model.js';

/** Where an evaluation ran: only LIVE (for LIVE rules), RETROACTION and MANUAL publish actions. */
export type Environment = 'LIVE' | 'RETROACTION' | 'MANUAL' | 'BACKTEST';

export interface RuleResult {
  id: string;
  name: string;
  status: string;
  outcome: Outcome;
  /** Passed, but the rule's maxDailyActions for the UTC day was already reached. */
  capped: boolean;
  conditions: ConditionRecord[];
}

export interface PublishedAction {
  id: string;
  kind: 'CUSTOMER_DEFINED_ACTION' | 'ENQUEUE_TO_MRT' | 'ENQUEUE_TO_CHILD_SAFETY';
  policies: Array<{ id: string; name: string; penalty: Penalty }>;
  rules: Array<{ id: string; name: string }>;
}

export interface ItemRef {
  id: string;
  typeId: string;
  typeName: string;
}

/** The outcome of every rule and condition for one item version (explainability). */
export type ItemEvaluated = DomainEvent<
  'ItemEvaluated',
  {
    item: ItemRef;
    version: number;
    environment: Environment;
    subject: string;
    rules: RuleResult[];
    actions: PublishedAction[];
  }
>;

/** A customer-defined action to deliver as a signed callback (the callbacks module sends it). */
export type ActionCallbackRequested = DomainEvent<
  'ActionCallbackRequested',
  {
    deliveryId: string;
    item: ItemRef;
    action: { id: string };
    policies: PublishedAction['policies'];
    rules: PublishedAction['rules'];
    custom: { [key: string]: unknown };
    creator: { id: string; typeId: string } | null;
    environment: Environment;
  }
>;

/** An item bound for human review (the review module creates the job). */
export type ReviewEnqueueRequested = DomainEvent<
  'ReviewEnqueueRequested',
  {
    jobId: string;
    item: ItemRef;
    version: number;
    queueId: 'default' | 'child-safety';
    source: 'RULE_EXECUTION';
    actionId: string;
    policies: PublishedAction['policies'];
    rules: PublishedAction['rules'];
    environment: Environment;
  }
>;

export type RuleDailyActionCounted = DomainEvent<
  'RuleDailyActionCounted',
  { ruleId: string; item: { id: string; typeId: string }; version: number }
>;

export type EvaluationEvent = ItemEvaluated | ActionCallbackRequested | ReviewEnqueueRequested;
