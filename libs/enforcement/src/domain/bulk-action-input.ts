import { checkList, isJsonObject, type PolicyDefinition, type ProblemSink } from '#warden/catalog/contracts';
import { type ErrorDetail, idProblem } from '#warden/kernel';
import type { BulkActionItem } from './bulk-action.events.js';
import { checkPolicyIds, type ExecutableAction, type ExecutionCatalog } from './execute-action-input.js';

/** Items one bulk operation may name (docs/bulk-actions.md, "Requests"). */
export const MAX_BULK_ITEMS = 10_000;
/** The reason's length, as a moderator decision's. */
export const MAX_BULK_REASON = 5000;
/** Problems of single items listed in one answer; past it, one more names how many were left out. */
export const MAX_ITEM_PROBLEMS = 100;

/** A bulk action request as checked: the items unique, in the order first given. */
export interface BulkActionInput {
  readonly action: ExecutableAction;
  readonly policies: PolicyDefinition[];
  readonly reason: string;
  readonly items: BulkActionItem[];
  /** Items given more than once (each is acted on once). */
  readonly duplicates: number;
}

export type BulkActionCheck = { readonly ok: true; readonly input: BulkActionInput } | { readonly ok: false; readonly problems: ErrorDetail[] };

const TITLE = 'Invalid bulk action';

/**
 * Checks a bulk action request (preview or request alike) against the organization's catalog,
 * whole, before anything is appended: the action (a live one or a built-in, assigned to every
 * item's type), the policies, a reason, and 1 to 10,000 items `{id, typeId}` whose ids follow the
 * rules of every customer id (they become part of stream names). All or nothing.
 */
export function checkBulkAction(body: Record<string, unknown>, catalog: ExecutionCatalog, limits: { readonly maxPolicies: number }): BulkActionCheck {
  const problems: ErrorDetail[] = [];
  const report: ProblemSink = (pointer, detail) => problems.push({ title: TITLE, detail, pointer });

  const actionId = body['actionId'];
  let action: ExecutableAction | undefined;
  if (actionId === undefined) report('/actionId', 'required field is missing');
  else if (typeof actionId !== 'string' || actionId === '') report('/actionId', 'expected a non-empty string');
  else if (!(action = catalog.actions.get(actionId))) report('/actionId', `unknown action '${actionId}' (or archived)`);

  const policies = checkPolicyIds(body['policyIds'], catalog, limits.maxPolicies, report);

  const reason = body['reason'];
  if (reason === undefined) report('/reason', 'required field is missing');
  else if (typeof reason !== 'string' || reason.trim() === '') report('/reason', 'expected a non-blank string');
  else if (reason.length > MAX_BULK_REASON) report('/reason', `at most ${MAX_BULK_REASON} characters`);

  const { items, duplicates } = checkItems(body['items'], catalog, action, report);

  if (problems.length > 0 || !action) return { ok: false, problems };
  return { ok: true, input: { action, policies, reason: reason as string, items, duplicates } };
}

function checkItems(
  value: unknown,
  catalog: ExecutionCatalog,
  action: ExecutableAction | undefined,
  report: ProblemSink,
): { items: BulkActionItem[]; duplicates: number } {
  const items: BulkActionItem[] = [];
  if (value === undefined) return (report('/items', 'required field is missing'), { items, duplicates: 0 });
  if (!checkList('/items', value, MAX_BULK_ITEMS, report, 'expected an array of objects {id, typeId}')) return { items, duplicates: 0 };
  if (value.length === 0) return (report('/items', 'expected at least one item'), { items, duplicates: 0 });
  let itemProblems = 0;
  const itemReport: ProblemSink = (pointer, detail) => {
    if (++itemProblems <= MAX_ITEM_PROBLEMS) report(pointer, detail);
  };
  const seen = new Set<string>();
  let duplicates = 0;
  value.forEach((element: unknown, i) => {
    const at = `/items/${i}`;
    if (!isJsonObject(element)) return itemReport(at, 'expected an object {id, typeId}');
    const { id, typeId } = element;
    const idIssue = typeof id === 'string' ? idProblem(id) : 'expected a non-empty string';
    let typeIssue: string | undefined;
    if (typeof typeId !== 'string' || typeId === '') typeIssue = 'expected a non-empty string';
    else if (!catalog.itemTypes.has(typeId)) typeIssue = `unknown item type '${typeId}'`;
    // No item types (`[]`) is every item type (execute-action-input.ts).
    else if (action?.itemTypeIds && action.itemTypeIds.length > 0 && !action.itemTypeIds.includes(typeId))
      typeIssue = `action '${action.id}' is not assigned to item type '${typeId}'`;
    if (idIssue) itemReport(`${at}/id`, idIssue);
    if (typeIssue) itemReport(`${at}/typeId`, typeIssue);
    if (idIssue || typeIssue) return;
    // Length-prefixed: no id can make two different pairs one key.
    const key = `${(typeId as string).length}:${typeId as string}:${id as string}`;
    if (seen.has(key)) return void duplicates++;
    seen.add(key);
    items.push({ id: id as string, typeId: typeId as string });
  });
  if (itemProblems > MAX_ITEM_PROBLEMS) report('/items', `${itemProblems - MAX_ITEM_PROBLEMS} more problems of single items not listed`);
  return { items, duplicates };
}
