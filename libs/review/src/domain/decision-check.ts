import {
  CHILD_SAFETY_QUEUE_ID,
  type ActionDefinition,
  type ItemTypeDefinition,
  type OrgSettings,
  type PolicyDefinition,
  validateItem,
} from '#warden/catalog/contracts';
import type { ErrorDetail } from '#warden/kernel';
import { DECISION_TYPES, type DecisionType, type JobPolicy } from './review-job.events.js';

/** The decision as a moderator sends it (the lock token is the handler's business). */
export interface DecisionRequest {
  type: string;
  actionIds?: string[] | null;
  policyIds?: string[] | null;
  reason?: string | null;
  note?: string | null;
  parameters?: { [name: string]: unknown } | null;
  targetQueueId?: string | null;
  /** The item version the moderator decides on (their job view's `item.version`); absent: the one their claim showed. */
  itemVersion?: number | null;
}

/** What the decision is checked against: the catalog as it is now, and the job. */
export interface DecisionCatalog {
  actions: readonly ActionDefinition[];
  policies: readonly PolicyDefinition[];
  itemTypes: readonly ItemTypeDefinition[];
  /** Undefined: the organization never set them (both off). */
  settings: OrgSettings | undefined;
  /** The queues the moderator can see. */
  visibleQueueIds: readonly string[];
  /** `appeal`: an appeal job (missing: not one). */
  job: { queueId: string; itemTypeId: string; appeal?: boolean };
}

/** The types a moderator may send on a review job (appeals have their own jobs; AUTOMATIC_CLOSE is the system's). */
export const MODERATOR_DECISION_TYPES = ['IGNORE', 'CUSTOM_ACTION', 'SUBMIT_CHILD_SAFETY_REPORT', 'TRANSFORM_JOB_AND_RECREATE_IN_QUEUE'] as const;
/** The only types an appeal job takes: its decision is the appeal's outcome. */
export const APPEAL_DECISION_TYPES = ['ACCEPT_APPEAL', 'REJECT_APPEAL'] as const;
export type ModeratorDecisionType = (typeof MODERATOR_DECISION_TYPES)[number] | (typeof APPEAL_DECISION_TYPES)[number];

export type CheckedDecision =
  | { ok: true; type: ModeratorDecisionType; actions: ActionDefinition[]; policies: JobPolicy[]; parameters: { [name: string]: unknown } }
  | { ok: false; problems: ErrorDetail[] };

const problem = (pointer: string, detail: string): ErrorDetail => ({ title: 'Invalid decision', detail, pointer });
const escapeToken = (token: string) => token.replace(/~/g, '~0').replace(/\//g, '~1');
const blank = (text: string | null | undefined) => text === null || text === undefined || text.trim() === '';

/**
 * Checks a moderator's decision against the catalog and the organization's settings, before
 * anything is appended: every problem at once, each with a pointer into the request body.
 */
export function checkDecision(request: DecisionRequest, catalog: DecisionCatalog): CheckedDecision {
  const problems: ErrorDetail[] = [];
  const type = request.type as DecisionType;
  if (!(DECISION_TYPES as readonly string[]).includes(request.type)) {
    return { ok: false, problems: [problem('/type', `expected one of ${MODERATOR_DECISION_TYPES.join(', ')}`)] };
  }
  const isAppealType = (APPEAL_DECISION_TYPES as readonly string[]).includes(type);
  if (isAppealType && !catalog.job.appeal) {
    return { ok: false, problems: [problem('/type', `${type} is only possible on appeal jobs`)] };
  }
  // An appeal job is closed by the appeal's outcome only: any other decision would leave the appellant without an answer.
  if (!isAppealType && catalog.job.appeal && type !== 'AUTOMATIC_CLOSE') {
    return { ok: false, problems: [problem('/type', `an appeal job is decided with ${APPEAL_DECISION_TYPES.join(' or ')}`)] };
  }
  if (type === 'AUTOMATIC_CLOSE') {
    return { ok: false, problems: [problem('/type', 'AUTOMATIC_CLOSE is decided by the system only')] };
  }
  const actionIds = request.actionIds ?? [];
  const policyIds = request.policyIds ?? [];
  const parameters = request.parameters ?? {};
  const settings = catalog.settings;

  const actions: ActionDefinition[] = [];
  if (type === 'CUSTOM_ACTION') {
    if (actionIds.length === 0) problems.push(problem('/actionIds', 'CUSTOM_ACTION needs at least one action'));
    actionIds.forEach((id, i) => {
      const action = catalog.actions.find((a) => a.id === id);
      if (actionIds.indexOf(id) !== i) problems.push(problem(`/actionIds/${i}`, `action '${id}' is listed twice`));
      else if (!action || action.kind !== 'CUSTOMER_DEFINED_ACTION') problems.push(problem(`/actionIds/${i}`, `no customer-defined action '${id}'`));
      else if (action.itemTypeIds.length > 0 && !action.itemTypeIds.includes(catalog.job.itemTypeId)) {
        problems.push(problem(`/actionIds/${i}`, `action '${id}' does not apply to items of type '${catalog.job.itemTypeId}'`));
      } else actions.push(action);
    });
    problems.push(...parameterProblems(parameters, actions, catalog.itemTypes));
    if (settings?.requirePolicyForDecisions && policyIds.length === 0) {
      problems.push(problem('/policyIds', 'this organization requires at least one policy for CUSTOM_ACTION decisions'));
    }
  } else {
    if (actionIds.length > 0) problems.push(problem('/actionIds', 'actions are only chosen with CUSTOM_ACTION'));
    if (Object.keys(parameters).length > 0) problems.push(problem('/parameters', 'parameters are only given with CUSTOM_ACTION'));
  }

  const policies: JobPolicy[] = [];
  policyIds.forEach((id, i) => {
    const policy = catalog.policies.find((p) => p.id === id);
    if (policyIds.indexOf(id) !== i) problems.push(problem(`/policyIds/${i}`, `policy '${id}' is listed twice`));
    else if (!policy) problems.push(problem(`/policyIds/${i}`, `no policy '${id}'`));
    else policies.push({ id: policy.id, name: policy.name, penalty: policy.penalty });
  });

  if (type === 'TRANSFORM_JOB_AND_RECREATE_IN_QUEUE') {
    const target = request.targetQueueId;
    if (blank(target)) problems.push(problem('/targetQueueId', 'TRANSFORM_JOB_AND_RECREATE_IN_QUEUE needs the queue to recreate the job in'));
    else if (target === catalog.job.queueId) problems.push(problem('/targetQueueId', 'the job is already in this queue'));
    // Its reports and context are child-safety data: moving it would show them to every viewer of the target.
    else if (catalog.job.queueId === CHILD_SAFETY_QUEUE_ID) problems.push(problem('/targetQueueId', 'a child-safety job stays in the child-safety queue'));
    else if (!catalog.visibleQueueIds.includes(target as string)) problems.push(problem('/targetQueueId', `no review queue '${target}'`));
  } else if (!blank(request.targetQueueId)) {
    problems.push(problem('/targetQueueId', 'a target queue is only given with TRANSFORM_JOB_AND_RECREATE_IN_QUEUE'));
  }

  // Every moderator decision, IGNORE included: the setting asks moderators to justify what they decide.
  if (settings?.requireDecisionReason && blank(request.reason)) {
    problems.push(problem('/reason', 'this organization requires a reason for every decision'));
  }

  if (problems.length > 0) return { ok: false, problems };
  return { ok: true, type, actions, policies, parameters };
}

/**
 * The values checked against each chosen action's `parameters` with the item validator's field
 * rules (one notion of "a NUMBER", "a URL", …): unknown names refused, required ones needed.
 */
function parameterProblems(
  parameters: { [name: string]: unknown },
  actions: readonly ActionDefinition[],
  itemTypes: readonly ItemTypeDefinition[],
): ErrorDetail[] {
  const problems: ErrorDetail[] = [];
  const declared = new Set(actions.flatMap((a) => a.parameters.map((p) => p.name)));
  for (const name of Object.keys(parameters)) {
    if (!declared.has(name)) problems.push(problem(`/parameters/${escapeToken(name)}`, `no chosen action has a parameter '${name}'`));
  }
  const knownItemTypeIds = new Set(itemTypes.map((t) => t.id));
  const seen = new Set<string>();
  for (const action of actions) {
    const asItemType: ItemTypeDefinition = {
      id: 'parameters',
      name: 'parameters',
      kind: 'CONTENT',
      version: null,
      fields: action.parameters.map((p) => ({ name: p.name, type: p.type, required: p.required, array: false, itemTypeIds: [] })),
      roles: {},
    };
    const checked = validateItem({ id: 'parameters', typeId: 'parameters', data: parameters }, asItemType, { pointer: '', knownItemTypeIds });
    for (const { pointer, detail } of checked) {
      // Only the declared fields: `data.images` is an item rule, not a parameter one.
      const name = pointer.replace(/^\/data\//, '').split('/')[0] ?? '';
      if (!pointer.startsWith('/data/') || !action.parameters.some((p) => escapeToken(p.name) === name)) continue;
      const at = `/parameters/${pointer.slice('/data/'.length)}`;
      if (seen.has(at)) continue;
      seen.add(at);
      problems.push(problem(at, `${detail} (parameter of action '${action.id}')`));
    }
  }
  return problems;
}
