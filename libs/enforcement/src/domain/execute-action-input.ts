import {
  type ActionDefinition,
  BUILTIN_ACTION_IDS,
  checkList,
  isJsonObject,
  type ItemTypeDefinition,
  type PolicyDefinition,
  type ProblemSink,
} from '#warden/catalog/contracts';
import { type ErrorDetail, idProblem } from '#warden/kernel';

/** An action as POST /api/v1/actions may execute it: a live catalog action or a built-in enqueue action. */
export interface ExecutableAction {
  readonly id: string;
  readonly kind: ActionDefinition['kind'];
  /** Undefined: assigned to every item type (the built-ins). */
  readonly itemTypeIds?: readonly string[];
  readonly body: { readonly [key: string]: unknown };
}

export interface ExecutionCatalog {
  readonly itemTypes: ReadonlyMap<string, ItemTypeDefinition>;
  readonly policies: ReadonlyMap<string, PolicyDefinition>;
  readonly actions: ReadonlyMap<string, ExecutableAction>;
}

/** The organization's live actions and the two built-ins, as the actions list shows them. */
export function executableActions(actions: readonly ActionDefinition[]): Map<string, ExecutableAction> {
  return new Map<string, ExecutableAction>([
    [BUILTIN_ACTION_IDS.mrt, { id: BUILTIN_ACTION_IDS.mrt, kind: 'ENQUEUE_TO_MRT', body: {} }],
    [BUILTIN_ACTION_IDS.childSafety, { id: BUILTIN_ACTION_IDS.childSafety, kind: 'ENQUEUE_TO_CHILD_SAFETY', body: {} }],
    ...actions.map((a) => [a.id, { id: a.id, kind: a.kind, itemTypeIds: a.itemTypeIds, body: a.body }] as const),
  ]);
}

/** An execution request (docs/enforcement.md, "`POST /api/v1/actions`: actions the platform executes") as checked. */
export interface ExecuteActionInput {
  readonly action: ExecutableAction;
  readonly item: { readonly id: string; readonly itemType: ItemTypeDefinition };
  readonly policies: PolicyDefinition[];
  readonly reportedItems: Array<{ id: string; typeId: string }>;
  readonly actorId: string | null;
}

export type ExecuteActionCheck = { readonly ok: true; readonly input: ExecuteActionInput } | { readonly ok: false; readonly problems: ErrorDetail[] };

const TITLE = 'Invalid action execution';

/**
 * Checks an execution request against the organization's catalog, every field at once, so that
 * one answer names every problem. Ids that become part of stream names and keys (the item's, the
 * reported items') and `actorId` are held to the rules of every customer-given id. The item need
 * not be known to Warden.
 */
export function checkExecuteAction(body: Record<string, unknown>, catalog: ExecutionCatalog, limits: { readonly maxItemsPerList: number }): ExecuteActionCheck {
  const problems: ErrorDetail[] = [];
  const report: ProblemSink = (pointer, detail) => problems.push({ title: TITLE, detail, pointer });

  const actionId = requiredId(body, 'actionId', report);
  const action = actionId === undefined ? undefined : catalog.actions.get(actionId);
  if (actionId !== undefined && !action) report('/actionId', `unknown action '${actionId}' (or archived)`);

  const itemId = requiredId(body, 'itemId', report);
  const itemTypeId = requiredId(body, 'itemTypeId', report);
  const itemType = itemTypeId === undefined ? undefined : catalog.itemTypes.get(itemTypeId);
  if (itemTypeId !== undefined && !itemType) report('/itemTypeId', `unknown item type '${itemTypeId}'`);
  // No item types (`[]`, the configuration's default) is every item type, as a moderator's decision reads it (decision-check.ts).
  if (action?.itemTypeIds && action.itemTypeIds.length > 0 && itemType && !action.itemTypeIds.includes(itemType.id)) {
    report('/actionId', `action '${action.id}' is not assigned to item type '${itemType.id}'`);
  }

  const policies = checkPolicyIds(body['policyIds'], catalog, limits.maxItemsPerList, report);
  const reportedItems = checkReportedItems(body['reportedItems'], catalog, limits, report);

  const actorId = body['actorId'];
  if (actorId !== undefined) {
    const issue = typeof actorId === 'string' ? idProblem(actorId) : 'expected a non-empty string';
    if (issue) report('/actorId', issue);
  }

  if (problems.length > 0 || !action || itemId === undefined || !itemType) return { ok: false, problems };
  return { ok: true, input: { action, item: { id: itemId, itemType }, policies, reportedItems, actorId: typeof actorId === 'string' ? actorId : null } };
}

function requiredId(body: Record<string, unknown>, field: string, report: ProblemSink): string | undefined {
  const value = body[field];
  if (value === undefined) return (report(`/${field}`, 'required field is missing'), undefined);
  const issue = typeof value === 'string' ? idProblem(value) : 'expected a non-empty string';
  if (issue) return (report(`/${field}`, issue), undefined);
  return value as string;
}

/** `policyIds`, optional: at most `max`, each a known policy; the policies once each, in the order first named. An execution's and a bulk action's alike. */
export function checkPolicyIds(value: unknown, catalog: ExecutionCatalog, max: number, report: ProblemSink): PolicyDefinition[] {
  const pointer = '/policyIds';
  if (value === undefined || !checkList(pointer, value, max, report, 'expected an array of policy ids')) return [];
  const policies: PolicyDefinition[] = [];
  value.forEach((id: unknown, i) => {
    if (typeof id !== 'string' || id === '') return report(`${pointer}/${i}`, 'expected a non-empty string');
    const policy = catalog.policies.get(id);
    if (!policy) return report(`${pointer}/${i}`, `unknown policy '${id}'`);
    if (!policies.includes(policy)) policies.push(policy);
  });
  return policies;
}

function checkReportedItems(
  value: unknown,
  catalog: ExecutionCatalog,
  limits: { maxItemsPerList: number },
  report: ProblemSink,
): Array<{ id: string; typeId: string }> {
  const pointer = '/reportedItems';
  if (value === undefined || !checkList(pointer, value, limits.maxItemsPerList, report, 'expected an array of objects {id, typeId}')) return [];
  const items: Array<{ id: string; typeId: string }> = [];
  value.forEach((element: unknown, i) => {
    const at = `${pointer}/${i}`;
    if (!isJsonObject(element)) return report(at, 'expected an object {id, typeId}');
    const { id, typeId } = element;
    const idIssue = typeof id === 'string' ? idProblem(id) : 'expected a non-empty string';
    const typeIssue =
      typeof typeId !== 'string' || typeId === '' ? 'expected a non-empty string' : catalog.itemTypes.has(typeId) ? undefined : `unknown item type '${typeId}'`;
    if (idIssue) report(`${at}/id`, idIssue);
    if (typeIssue) report(`${at}/typeId`, typeIssue);
    if (idIssue || typeIssue || items.some((r) => r.id === id && r.typeId === typeId)) return;
    items.push({ id: id as string, typeId: typeId as string });
  });
  return items;
}
