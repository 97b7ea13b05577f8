import { Query } from '@nestjs/cqrs';
import type { Permission } from '#warden/identity/contracts';

export interface Named {
  id: string;
  name: string;
}

export interface Outcome extends Named {
  decided: number;
  overturned: number;
  /** overturned / decided; null when none was decided. */
  overturnRate: number | null;
}

/** Every chart of the Insights page over a period (docs/insights.md, "The charts"). */
export interface InsightsReport {
  from: string;
  to: string;
  /** The queue filter; null: every queue. */
  queueId: string | null;
  /** The period's UTC days, oldest first: each `rows` array has one row per day, in this order. */
  days: string[];
  /**
   * The queues one may filter by: every queue ever defined, and any with history in the period; the
   * built-in child-safety queue only for a viewer with VIEW_CHILD_SAFETY_DATA (as on the queues page).
   */
  queues: Named[];
  actionsBySource: Array<{ day: string; rule: number; moderator: number; threshold: number; executed: number }>;
  /** `counts[i]` is the actions naming `policies[i]` that day (an action naming two policies counts under both; '' names none). */
  actionsByPolicy: { policies: Named[]; rows: Array<{ day: string; counts: number[] }> };
  /** Per queue (the filter's, or each) and day: open jobs at the end of the day and the longest any job had waited that day. */
  queueDepth: { queues: Named[]; rows: Array<{ day: string; depth: number[]; oldestWaitSeconds: number[] }> };
  /** Moderators' decisions: time from the job's opening, p50 and p90 (seconds, from log-spaced bins), per queue over the period and per day. */
  timeToDecision: {
    byQueue: Array<{ queueId: string; name: string; decided: number; p50Seconds: number | null; p90Seconds: number | null }>;
    byDay: Array<{ day: string; decided: number; p50Seconds: number | null; p90Seconds: number | null }>;
  };
  /** `counts[i]` is the decisions `moderators[i]` (a user id) took that day. */
  decisionsByModerator: { moderators: string[]; rows: Array<{ day: string; counts: number[] }> };
  /** Appeals decided in the period, attributed as the appeals report does. */
  appealOverturns: { byPolicy: Outcome[]; byRule: Outcome[] };
  /** Published actions: automated (rules, strike thresholds) and human (moderators, actions the platform executed). */
  automation: { automated: number; human: number; automatedShare: number | null; rows: Array<{ day: string; automated: number; human: number }> };
  /** Per rule that acted in the period: its actions per day (as its cap counts them when it has one) and its cap. */
  ruleActions: { rules: Array<Named & { maxDailyActions: number | null }>; rows: Array<{ day: string; counts: number[] }> };
}

/**
 * The charts as `viewer` may see them: without VIEW_CHILD_SAFETY_DATA the child-safety queue is in
 * none of them (the queues page lists it only with that permission), and asked for by id it is an
 * unknown queue. The permissions are the session's, never a parameter.
 */
export class GetInsightsQuery extends Query<InsightsReport> {
  constructor(
    readonly orgId: string,
    readonly viewer: { readonly permissions: readonly Permission[] },
    readonly from: string | undefined,
    readonly to: string | undefined,
    readonly queueId: string | undefined,
  ) {
    super();
  }
}
