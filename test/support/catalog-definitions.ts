// Object mothers for the catalog's definitions, as the live catalog hands them to other modules.
import type { ActionDefinition, PolicyDefinition } from '#warden/catalog/contracts';

/** A customer-defined action on posts, named by its id, that applies no strikes; `overrides` for the rest. */
export function actionDefinition(id: string, overrides: Partial<ActionDefinition> = {}): ActionDefinition {
  return {
    id,
    name: id,
    description: null,
    kind: 'CUSTOMER_DEFINED_ACTION',
    itemTypeIds: ['post'],
    applyUserStrikes: false,
    penalty: 'MEDIUM',
    callback: null,
    body: {},
    parameters: [],
    ...overrides,
  };
}

/** A top-level policy, named by its id, of LOW penalty and one strike; `overrides` for the rest. */
export function policyDefinition(id: string, overrides: Partial<PolicyDefinition> = {}): PolicyDefinition {
  return {
    id,
    name: id,
    parentId: null,
    policyText: null,
    enforcementGuidelines: null,
    policyType: null,
    penalty: 'LOW',
    userStrikeCount: 1,
    applyUserStrikeCountConfigToChildren: false,
    ...overrides,
  };
}
