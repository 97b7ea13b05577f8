import type { ActionDefinition, ItemTypeDefinition, PolicyDefinition } from '#warden/catalog/contracts';
import { reviewOrgConfigWithPillSpam } from './review-fixture.js';

/** The review fixture's organization with a DSA mapping, a trusted-flagger reporter type, a suspension and a strike threshold. */
export function transparencyConfig(callbackUrl: string, transparencyExtra = ''): string {
  return reviewOrgConfigWithPillSpam(callbackUrl)
    .replace(
      '  - { id: user, name: User, kind: USER, fields: [{ name: name, type: STRING }], roles: { displayName: name } }',
      `  - { id: user, name: User, kind: USER, fields: [{ name: name, type: STRING }], roles: { displayName: name }, dsa: { contentType: [CONTENT_TYPE_OTHER], contentTypeOther: Account } }
  - { id: flagger, name: Trusted flagger, kind: USER, fields: [{ name: name, type: STRING }] }`,
    )
    .replace(
      '    roles: { creator: author, createdAt: createdAt }',
      '    roles: { creator: author, createdAt: createdAt }\n    dsa: { contentType: [CONTENT_TYPE_TEXT], contentLanguage: EN }',
    )
    .replace(
      '  - { id: spam, name: Spam, penalty: LOW, userStrikeCount: 1 }',
      '  - { id: spam, name: Spam, penalty: LOW, userStrikeCount: 1, dsa: { category: STATEMENT_CATEGORY_SCAMS_AND_FRAUD, decisionGround: DECISION_GROUND_INCOMPATIBLE_CONTENT, incompatibleContentGround: "Terms 4.2", incompatibleContentExplanation: "Unsolicited commercial content." } }',
    )
    .replace(
      '  - { id: violence, name: Violence, penalty: HIGH, userStrikeCount: 3 }',
      '  - { id: violence, name: Violence, penalty: HIGH, userStrikeCount: 3, dsa: { category: STATEMENT_CATEGORY_VIOLENCE, decisionGround: DECISION_GROUND_ILLEGAL_CONTENT, illegalContentLegalGround: "Criminal code 131", illegalContentExplanation: "Glorifies violence." } }',
    )
    .replace(
      '    parameters:\n      - { name: durationDays, type: NUMBER, required: false }',
      `    parameters:
      - { name: durationDays, type: NUMBER, required: false }
    dsa: { decisionVisibility: [DECISION_VISIBILITY_CONTENT_REMOVED] }
  - id: suspend
    name: Suspend
    kind: CUSTOMER_DEFINED_ACTION
    itemTypeIds: [user]
    callback: { url: ${callbackUrl}/hooks/suspend }
    dsa: { decisionAccount: DECISION_ACCOUNT_SUSPENDED, durationDays: 30, defaultPolicyId: violence }
strikes:
  thresholds: [{ strikes: 3, actionId: suspend }]
transparency:
  territorialScope: [EEA]
  trustedFlaggers: [flagger]${transparencyExtra}`,
    );
}

/** A customer-defined action as the catalog holds it, with its DSA mapping (undefined: none). */
export const dsaAction = (id: string, dsa: ActionDefinition['dsa']): ActionDefinition => ({
  id,
  name: `Action ${id}`,
  description: null,
  kind: 'CUSTOMER_DEFINED_ACTION',
  itemTypeIds: [],
  applyUserStrikes: false,
  penalty: 'NONE',
  callback: null,
  body: {},
  parameters: [],
  ...(dsa !== undefined ? { dsa } : {}),
});

/** A policy as the catalog holds it, with its DSA mapping (undefined: none). */
export const dsaPolicy = (id: string, dsa: PolicyDefinition['dsa']): PolicyDefinition => ({
  id,
  name: `Policy ${id}`,
  parentId: null,
  policyText: null,
  enforcementGuidelines: null,
  policyType: null,
  penalty: 'LOW',
  userStrikeCount: 0,
  applyUserStrikeCountConfigToChildren: false,
  ...(dsa ? { dsa } : {}),
});

/** A content item type with no fields, with its DSA mapping (undefined: none). */
export const dsaItemType = (id: string, dsa: ItemTypeDefinition['dsa']): ItemTypeDefinition => ({
  id,
  name: id,
  kind: 'CONTENT',
  version: null,
  fields: [],
  roles: {},
  ...(dsa ? { dsa } : {}),
});
