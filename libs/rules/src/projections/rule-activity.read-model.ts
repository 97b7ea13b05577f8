/** A rule's latest matches, newest first (at most RECENT_MATCHES), per organization and rule. */
export const RULE_MATCHES = 'rules_rule_matches';
/** What a rule did on one UTC day, per organization, day and rule. */
export const RULE_DAILY_ACTIONS = 'rules_rule_daily_actions';

export const RECENT_MATCHES = 10;

export interface RuleMatch {
  itemId: string;
  itemTypeId: string;
  version: number;
  evaluatedAt: string;
  environment: string;
  /** The actions the rule published for the item (none when capped, or for a rule without actions). */
  actionIds: string[];
  /** Passed, but the rule's maxDailyActions was already reached. */
  capped: boolean;
}

export interface RuleMatchesDoc {
  orgId: string;
  ruleId: string;
  matches: RuleMatch[];
}

export interface RuleDailyActionsDoc {
  orgId: string;
  ruleId: string;
  day: string;
  /** Contents counted toward maxDailyActions: the length of the day's cap stream. */
  counted: number;
  /** Live evaluations in which the rule published an action (rules without a cap have no cap stream). */
  acted: number;
}

export const ruleMatchesDocId = (orgId: string, ruleId: string) => `${orgId}:${ruleId}`;
export const ruleDailyActionsDocId = (orgId: string, day: string, ruleId: string) => `${orgId}:${day}:${ruleId}`;
