import type { ActionDefinition, ItemTypeDefinition, PolicyDefinition, PolicyDsaMapping, TransparencySettings } from '#warden/catalog/contracts';

/** The facts a statement states (the read model's StatementFactsDoc, without its bookkeeping). */
export interface StatementFacts {
  puid: string;
  trigger: 'rule' | 'decision' | 'strike-threshold' | 'post-actions';
  item: { id: string; typeId: string };
  actionId: string;
  policyIds: readonly string[];
  decidedAt: string;
  contentDate: string;
  notice: { firstAt: string; reporterTypes: readonly string[] } | null;
  automatedDetection: boolean;
  automatedDecision: boolean;
}

/** The organization's catalog as a statement reads it: every entity ever defined (a decision may name one archived since). */
export interface StatementCatalog {
  policies: ReadonlyMap<string, PolicyDefinition>;
  actions: ReadonlyMap<string, ActionDefinition>;
  itemTypes: ReadonlyMap<string, ItemTypeDefinition>;
  transparency: TransparencySettings;
}

/** A statement of reasons in the Transparency Database's submission format (docs/transparency.md). */
export type DatabaseStatement = { [attribute: string]: string | string[] };

export type RenderedStatement =
  | { kind: 'statement'; statement: DatabaseStatement }
  /** The decision restricts (or is not known not to), but the mapping lacks what the statement needs. */
  | { kind: 'incomplete'; problems: string[] }
  /** The action is mapped `dsa: false`: no statement is due. */
  | { kind: 'none' };

const DAY_MS = 86_400_000;
const addDays = (date: string, days: number) => new Date(Date.parse(`${date}T00:00:00Z`) + days * DAY_MS).toISOString().slice(0, 10);

/** The source of the investigation (documentation section 7.1): a notice, a trusted flagger's, or the platform's own initiative. */
export function sourceType(
  facts: Pick<StatementFacts, 'notice'>,
  trustedFlaggers: readonly string[],
): 'SOURCE_ARTICLE_16' | 'SOURCE_TRUSTED_FLAGGER' | 'SOURCE_VOLUNTARY' {
  if (!facts.notice) return 'SOURCE_VOLUNTARY';
  return facts.notice.reporterTypes.some((t) => trustedFlaggers.includes(t)) ? 'SOURCE_TRUSTED_FLAGGER' : 'SOURCE_ARTICLE_16';
}

/** The policy whose category and grounds the statement states (see groundPolicies); undefined: none is mapped. */
export function mainPolicy(facts: Pick<StatementFacts, 'policyIds' | 'actionId'>, catalog: StatementCatalog): PolicyDefinition | undefined {
  const dsa = catalog.actions.get(facts.actionId)?.dsa;
  return groundPolicies(facts, catalog, dsa ? dsa.defaultPolicyId : undefined)[0];
}

/** The policies whose grounds the statement states, in the decision's order; else the action's default policy. */
function groundPolicies(facts: Pick<StatementFacts, 'policyIds'>, catalog: StatementCatalog, defaultPolicyId: string | undefined): PolicyDefinition[] {
  const mapped = facts.policyIds.flatMap((id) => {
    const policy = catalog.policies.get(id);
    return policy?.dsa ? [policy] : [];
  });
  if (mapped.length > 0) return mapped;
  const fallback = defaultPolicyId === undefined ? undefined : catalog.policies.get(defaultPolicyId);
  return fallback?.dsa ? [fallback] : [];
}

const quoted = (name: string) => `"${name}"`;

/**
 * The facts and circumstances (decision_facts): what Warden recorded, in words, from names the
 * organization configured; never what a user or moderator wrote (the Database forbids personal
 * data, and a moderator's note may quote the user).
 */
function decisionFacts(facts: StatementFacts, action: ActionDefinition, policies: readonly PolicyDefinition[], source: string): string {
  const under = policies.length > 0 ? ` under the policy ${policies.map((p) => quoted(p.name)).join(', ')}` : '';
  const after = source === 'SOURCE_VOLUNTARY' ? '' : source === 'SOURCE_TRUSTED_FLAGGER' ? ' after a notice from a trusted flagger' : ' after a notice';
  switch (facts.trigger) {
    case 'rule':
      return `An automated rule of the platform matched the content and applied the action ${quoted(action.name)}${under}${after}, without human review.`;
    case 'decision':
      return `A moderator reviewed the content${facts.automatedDetection ? ' flagged by an automated rule' : ''}${after} and applied the action ${quoted(action.name)}${under}.`;
    case 'post-actions':
      return `The platform applied the action ${quoted(action.name)}${under}${after}.`;
    case 'strike-threshold':
      return `The account reached the platform's threshold of strikes for earlier decisions, which applies the action ${quoted(action.name)}${under} automatically.`;
  }
}

function grounds(main: PolicyDsaMapping): DatabaseStatement {
  const out: DatabaseStatement = { decision_ground: main.decisionGround };
  if (main.decisionGroundReferenceUrl !== undefined) out['decision_ground_reference_url'] = main.decisionGroundReferenceUrl;
  if (main.decisionGround === 'DECISION_GROUND_ILLEGAL_CONTENT') {
    out['illegal_content_legal_ground'] = main.illegalContentLegalGround!;
    out['illegal_content_explanation'] = main.illegalContentExplanation!;
  } else {
    out['incompatible_content_ground'] = main.incompatibleContentGround!;
    out['incompatible_content_explanation'] = main.incompatibleContentExplanation!;
    if (main.incompatibleContentIllegal !== undefined) out['incompatible_content_illegal'] = main.incompatibleContentIllegal ? 'Yes' : 'No';
  }
  return out;
}

/**
 * A published action as a statement of reasons, with the mapping in force: the action's
 * restriction, the first mapped policy's category and grounds (the others' categories as
 * category_addition), the item type's content type, the organization's territorial scope.
 */
export function renderStatement(facts: StatementFacts, catalog: StatementCatalog): RenderedStatement {
  const action = catalog.actions.get(facts.actionId);
  if (action?.dsa === false) return { kind: 'none' };
  const problems: string[] = [];
  const restriction = action?.dsa;
  if (!action) problems.push(`action ${facts.actionId} is not in the catalog`);
  else if (restriction === undefined) problems.push(`action ${facts.actionId} has no dsa mapping`);
  const policies = groundPolicies(facts, catalog, restriction ? restriction.defaultPolicyId : undefined);
  if (policies.length === 0) {
    problems.push(
      facts.policyIds.length > 0
        ? `none of the policies ${facts.policyIds.join(', ')} has a dsa mapping`
        : `the decision names no policy and action ${facts.actionId} has no dsa.defaultPolicyId`,
    );
  }
  const content = catalog.itemTypes.get(facts.item.typeId)?.dsa;
  if (!content) problems.push(`item type ${facts.item.typeId} has no dsa mapping`);
  if (!catalog.transparency.enabled) problems.push('transparency is off for the organization (no transparency: section)');
  if (problems.length > 0 || !action || !restriction || !content) return { kind: 'incomplete', problems };

  const applicationDate = facts.decidedAt.slice(0, 10);
  const end = restriction.durationDays === undefined ? undefined : addDays(applicationDate, restriction.durationDays);
  const statement: DatabaseStatement = {};
  if (restriction.decisionVisibility) {
    statement['decision_visibility'] = [...restriction.decisionVisibility];
    if (restriction.decisionVisibilityOther !== undefined) statement['decision_visibility_other'] = restriction.decisionVisibilityOther;
    if (end) statement['end_date_visibility_restriction'] = end;
  }
  if (restriction.decisionMonetary) {
    statement['decision_monetary'] = restriction.decisionMonetary;
    if (restriction.decisionMonetaryOther !== undefined) statement['decision_monetary_other'] = restriction.decisionMonetaryOther;
    if (end) statement['end_date_monetary_restriction'] = end;
  }
  if (restriction.decisionProvision) {
    statement['decision_provision'] = restriction.decisionProvision;
    if (end) statement['end_date_service_restriction'] = end;
  }
  if (restriction.decisionAccount) {
    statement['decision_account'] = restriction.decisionAccount;
    if (end) statement['end_date_account_restriction'] = end;
  }
  if (catalog.transparency.accountType) statement['account_type'] = catalog.transparency.accountType;

  const main = policies[0]!.dsa!;
  Object.assign(statement, grounds(main));
  statement['content_type'] = [...content.contentType];
  if (content.contentTypeOther !== undefined) statement['content_type_other'] = content.contentTypeOther;
  if (content.contentLanguage !== undefined) statement['content_language'] = content.contentLanguage;
  statement['category'] = main.category;
  const additions = [...new Set(policies.slice(1).map((p) => p.dsa!.category))].filter((c) => c !== main.category);
  if (additions.length > 0) statement['category_addition'] = additions;
  const keywords = [...new Set(policies.flatMap((p) => p.dsa!.categorySpecification ?? []))];
  if (keywords.length > 0) statement['category_specification'] = keywords;
  const other = policies.map((p) => p.dsa!.categorySpecificationOther).find((o) => o !== undefined);
  if (other !== undefined) statement['category_specification_other'] = other;
  statement['territorial_scope'] = [...catalog.transparency.territorialScope];
  statement['content_date'] = facts.contentDate;
  statement['application_date'] = applicationDate;
  const source = sourceType(facts, catalog.transparency.trustedFlaggers);
  statement['decision_facts'] = decisionFacts(facts, action, policies, source);
  statement['source_type'] = source;
  statement['automated_detection'] = facts.automatedDetection ? 'Yes' : 'No';
  statement['automated_decision'] = facts.automatedDecision ? 'AUTOMATED_DECISION_FULLY' : 'AUTOMATED_DECISION_NOT_AUTOMATED';
  statement['puid'] = facts.puid;
  return { kind: 'statement', statement };
}
