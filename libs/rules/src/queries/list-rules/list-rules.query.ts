import { Query } from '@nestjs/cqrs';
import type { RuleStatus } from '#warden/catalog';
import type { RuleMatch } from '../../projections/rule-activity.read-model.js';

export interface RuleSummary {
  readonly id: string;
  readonly name: string;
  /** EXPIRED from `expiresAt` on, whatever the configuration says. */
  readonly status: RuleStatus;
  readonly expiresAt: string | null;
  readonly itemTypeIds: readonly string[];
  readonly actionIds: readonly string[];
  readonly maxDailyActions: number | null;
  /** Actions today (UTC): what the daily cap counted, or for a rule without one, live evaluations it acted in. */
  readonly actionsToday: number;
  /** Newest first, at most 10. */
  readonly recentMatches: readonly RuleMatch[];
}

/** The organization's live rules (not archived), each with today's actions and its latest matches. */
export class ListRulesQuery extends Query<RuleSummary[]> {
  constructor(readonly orgId: string) {
    super();
  }
}
