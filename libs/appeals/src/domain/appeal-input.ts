import { isIsoDateTime, type ItemTypeDefinition, validateItem } from '#warden/catalog/contracts';
import { type ErrorDetail, idProblem } from '#warden/kernel';
import type { AppealContextItem, Appellant } from './appeal.events.js';

/** An appeal as checked (interface spec 4.3). */
export interface AppealInput {
  readonly appealId: string;
  readonly appealedBy: Appellant;
  readonly appealedAt: string;
  readonly actionedItem: { readonly id: string; readonly typeId: string; readonly data: { [field: string]: unknown } };
  readonly actionsTaken: string[];
  readonly appealReason: string | null;
  readonly violatingPolicyIds: string[];
  readonly additionalItems: AppealContextItem[];
}

export interface AppealCatalog {
  readonly itemTypes: ReadonlyMap<string, ItemTypeDefinition>;
  readonly policyIds: ReadonlySet<string>;
}

export interface AppealLimits {
  /** Per item, as JSON (WARDEN_MAX_ITEM_BYTES). */
  readonly maxItemBytes: number;
  /** Per list (actionsTaken, violatingPolicies, additionalItems): WARDEN_MAX_ITEMS_PER_REQUEST. */
  readonly maxItemsPerList: number;
}

export type AppealCheck =
  | { readonly ok: true; readonly input: AppealInput }
  | { readonly ok: false; readonly tooLarge: ErrorDetail[]; readonly problems: ErrorDetail[] };

const TITLE = 'Invalid appeal';

type Report = (pointer: string, detail: string) => void;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

const jsonBytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value) ?? '', 'utf8');

const sizeProblem = (pointer: string, bytes: number, limits: AppealLimits): ErrorDetail => ({
  title: 'Payload too large',
  detail: `the item has ${bytes} bytes as JSON; at most ${limits.maxItemBytes} bytes per item`,
  pointer,
});

/**
 * Checks an appeal against the organization's catalog, every part at once, so that one answer
 * names every problem. `appealId` becomes part of a stream name: it is held to the rules of every
 * customer-given id. The actioned item and the context items are held to their item types
 * leniently (as `partial` items: the platform sends what it has of content already actioned).
 * `actionsTaken` names the platform's copy of the actions Warden sent; they are not required to
 * be live actions still (an action archived since may be appealed).
 */
export function checkAppeal(body: Record<string, unknown>, catalog: AppealCatalog, limits: AppealLimits): AppealCheck {
  const problems: ErrorDetail[] = [];
  const tooLarge: ErrorDetail[] = [];
  const report: Report = (pointer, detail) => problems.push({ title: TITLE, detail, pointer });
  const knownItemTypeIds = new Set(catalog.itemTypes.keys());

  const appealId = body['appealId'];
  if (appealId === undefined) report('/appealId', 'required field is missing');
  else {
    const issue = typeof appealId === 'string' ? idProblem(appealId) : 'expected a non-empty string';
    if (issue) report('/appealId', issue);
  }

  const appealedBy = checkAppellant(body['appealedBy'], catalog, report);

  const appealedAt = body['appealedAt'];
  if (appealedAt === undefined) report('/appealedAt', 'required field is missing');
  else if (!isIsoDateTime(appealedAt)) report('/appealedAt', 'expected an ISO 8601 datetime with a time part');

  const item = body['actionedItem'];
  if (item === undefined) report('/actionedItem', 'required field is missing');
  else if (!isObject(item)) report('/actionedItem', 'expected a JSON object');
  else {
    const bytes = jsonBytes(item);
    if (bytes > limits.maxItemBytes) tooLarge.push(sizeProblem('/actionedItem', bytes, limits));
    const itemType = typeof item['typeId'] === 'string' ? catalog.itemTypes.get(item['typeId']) : undefined;
    const lenient = { id: item['id'], typeId: item['typeId'], data: item['data'], typeSchemaVariant: 'partial' };
    for (const p of validateItem(lenient, itemType, { pointer: '/actionedItem', knownItemTypeIds })) report(p.pointer, p.detail);
  }

  const actionsTaken = checkActionsTaken(body['actionsTaken'], limits, report);

  const reason = body['appealReason'];
  if (reason !== undefined && typeof reason !== 'string') report('/appealReason', 'expected a string');

  const violatingPolicyIds = checkViolatingPolicies(body['violatingPolicies'], catalog, limits, report);
  const additionalItems = checkContextItems(body['additionalItems'], catalog, limits, report, tooLarge);

  if (tooLarge.length > 0 || problems.length > 0) return { ok: false, tooLarge, problems };
  const actioned = item as { id: string; typeId: string; data: { [field: string]: unknown } };
  return {
    ok: true,
    input: {
      appealId: appealId as string,
      appealedBy: appealedBy!,
      appealedAt: appealedAt as string,
      actionedItem: { id: actioned.id, typeId: actioned.typeId, data: actioned.data },
      actionsTaken,
      appealReason: typeof reason === 'string' ? reason : null,
      violatingPolicyIds,
      additionalItems,
    },
  };
}

function checkAppellant(value: unknown, catalog: AppealCatalog, report: Report): Appellant | undefined {
  if (value === undefined) return report('/appealedBy', 'required field is missing'), undefined;
  if (!isObject(value)) return report('/appealedBy', 'expected a JSON object {id, typeId}'), undefined;
  let failed = false;
  const fail = (pointer: string, detail: string) => {
    failed = true;
    report(pointer, detail);
  };
  const { id, typeId } = value;
  const idIssue = typeof id === 'string' ? idProblem(id) : 'expected a non-empty string';
  if (idIssue) fail('/appealedBy/id', idIssue);
  if (typeof typeId !== 'string' || typeId === '') fail('/appealedBy/typeId', 'expected a non-empty string');
  else {
    const type = catalog.itemTypes.get(typeId);
    if (!type) fail('/appealedBy/typeId', `unknown item type '${typeId}'`);
    else if (type.kind !== 'USER') fail('/appealedBy/typeId', `expected an item type of kind USER; '${typeId}' is ${type.kind}`);
  }
  return failed ? undefined : { id: id as string, typeId: typeId as string };
}

function checkActionsTaken(value: unknown, limits: AppealLimits, report: Report): string[] {
  const pointer = '/actionsTaken';
  if (value === undefined) return report(pointer, 'required field is missing'), [];
  if (!Array.isArray(value)) return report(pointer, 'expected an array of action ids'), [];
  if (value.length === 0) return report(pointer, 'expected at least one action id'), [];
  if (value.length > limits.maxItemsPerList) return report(pointer, `at most ${limits.maxItemsPerList} items (got ${value.length})`), [];
  const ids: string[] = [];
  value.forEach((id: unknown, i) => {
    const issue = typeof id === 'string' ? idProblem(id) : 'expected a non-empty string';
    if (issue) report(`${pointer}/${i}`, issue);
    else if (!ids.includes(id as string)) ids.push(id as string);
  });
  return ids;
}

function checkViolatingPolicies(value: unknown, catalog: AppealCatalog, limits: AppealLimits, report: Report): string[] {
  const pointer = '/violatingPolicies';
  if (value === undefined) return [];
  if (!Array.isArray(value)) return report(pointer, 'expected an array of objects {id}'), [];
  if (value.length > limits.maxItemsPerList) return report(pointer, `at most ${limits.maxItemsPerList} items (got ${value.length})`), [];
  const ids: string[] = [];
  value.forEach((element: unknown, i) => {
    const at = `${pointer}/${i}`;
    if (!isObject(element)) return report(at, 'expected an object {id}');
    const id = element['id'];
    if (typeof id !== 'string' || id === '') return report(`${at}/id`, 'expected a non-empty string');
    if (!catalog.policyIds.has(id)) return report(`${at}/id`, `unknown policy '${id}'`);
    if (!ids.includes(id)) ids.push(id);
  });
  return ids;
}

function checkContextItems(value: unknown, catalog: AppealCatalog, limits: AppealLimits, report: Report, tooLarge: ErrorDetail[]): AppealContextItem[] {
  const pointer = '/additionalItems';
  if (value === undefined) return [];
  if (!Array.isArray(value)) return report(pointer, 'expected an array'), [];
  if (value.length > limits.maxItemsPerList) return report(pointer, `at most ${limits.maxItemsPerList} items (got ${value.length})`), [];
  const knownItemTypeIds = new Set(catalog.itemTypes.keys());
  const items: AppealContextItem[] = [];
  value.forEach((element: unknown, i) => {
    const at = `${pointer}/${i}`;
    if (!isObject(element)) return report(at, 'expected a JSON object');
    const bytes = jsonBytes(element);
    if (bytes > limits.maxItemBytes) return tooLarge.push(sizeProblem(at, bytes, limits));
    const { id, typeId, data } = element;
    const itemType = typeof typeId === 'string' ? catalog.itemTypes.get(typeId) : undefined;
    const found = validateItem({ id, typeId, data, typeSchemaVariant: 'partial' }, itemType, { pointer: at, knownItemTypeIds });
    for (const p of found) report(p.pointer, p.detail);
    if (found.length === 0) items.push({ id: id as string, typeId: typeId as string, data: data as AppealContextItem['data'] });
  });
  return items;
}
