import type { ActionDefinition, PolicyDefinition } from '#warden/catalog/contracts';

/**
 * A policy's strike count: its own `userStrikeCount` when it has one (above 0); otherwise that of
 * the nearest ancestor with `applyUserStrikeCountConfigToChildren`, the first one met walking up
 * `parentId` (its own count, even 0); otherwise 0. A cycle or a missing parent ends the walk.
 */
export function policyStrikeCount(policyId: string, policies: ReadonlyMap<string, PolicyDefinition>): number {
  const policy = policies.get(policyId);
  if (!policy) return 0;
  if (policy.userStrikeCount > 0) return policy.userStrikeCount;
  const seen = new Set([policy.id]);
  for (let parentId = policy.parentId; parentId !== null && !seen.has(parentId);) {
    const parent = policies.get(parentId);
    if (!parent) return 0;
    if (parent.applyUserStrikeCountConfigToChildren) return parent.userStrikeCount;
    seen.add(parent.id);
    parentId = parent.parentId;
  }
  return 0;
}

/** An action's strikes: none unless it has `applyUserStrikes`; then the largest of its policies'. */
export function actionStrikes(
  action: Pick<ActionDefinition, 'applyUserStrikes'> | undefined,
  policyIds: readonly string[],
  policies: ReadonlyMap<string, PolicyDefinition>,
): number {
  if (!action?.applyUserStrikes) return 0;
  return policyIds.reduce((max, id) => Math.max(max, policyStrikeCount(id, policies)), 0);
}
