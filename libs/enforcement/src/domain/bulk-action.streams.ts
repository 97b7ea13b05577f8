import { deterministicId, streamName } from '#warden/kernel';

/** One stream per bulk operation: `bulk_action-<org>:<bulkActionId>` (the id is the service's). */
export const bulkActionStream = (orgId: string, bulkActionId: string): string => streamName('bulk_action', orgId, bulkActionId);

/**
 * The execution a bulk action makes of one item, derived from what it means (docs/bulk-actions.md,
 * "Never twice"): the organization, the action, the policies (as a set), the reason and the item.
 * The same request again, in this bulk operation after a crash or in a new one, names the same
 * execution, whose stream already holds it, so nothing is executed twice.
 */
export function bulkExecutionId(orgId: string, actionId: string, policyIds: readonly string[], reason: string, item: { id: string; typeId: string }): string {
  const policies = [...new Set(policyIds)].sort().join('\n');
  return `exe_b${deterministicId('bulk-action-execution', orgId, actionId, policies, reason, item.typeId, item.id).replaceAll('-', '')}`;
}
