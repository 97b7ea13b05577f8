import { streamName } from '#warden/kernel';

/** One stream per evaluated item version: its existence means "evaluated" (re-runs skip it). */
export const evaluationStream = (orgId: string, typeId: string, itemId: string, version: number, environment: string) =>
  streamName('item_evaluation', orgId, typeId, itemId, String(version), environment);

/** A rule's actions on one UTC day: its length is the count that maxDailyActions caps. */
export const dailyActionsStream = (orgId: string, ruleId: string, day: string) => streamName('rule_daily_actions', orgId, ruleId, day);

/** One stream per user report routed (its id is the report's): its one event says where it went. */
export const reportRoutingStream = (orgId: string, reportId: string) => streamName('report_routing', orgId, reportId);
