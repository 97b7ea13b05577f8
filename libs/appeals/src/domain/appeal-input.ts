import {
  checkLenientItems,
  checkList,
  checkUserFields,
  type InputCatalog,
  type InputCheck,
  isIsoDateTime,
  isJsonObject,
  type ItemListLimits,
  itemSizeProblem,
  jsonBytes,
  type ProblemSink,
  validateItem,
} from '#warden/catalog/contracts';
import { type ErrorDetail, freeTextTooLong, idProblem, MAX_FREE_TEXT_LENGTH } from '#warden/kernel';
import type { AppealContextItem, Appellant } from './appeal.events.js';

/** An appeal as checked (docs/review.md, "Appeals"). */
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

const TITLE = 'Invalid appeal';

/**
 * Checks an appeal against the organization's catalog, every part at once, so that one answer
 * names every problem. `appealId` becomes part of a stream name: it is held to the rules of every
 * customer-given id. The actioned item and the context items are held to their item types
 * leniently (as `partial` items: the platform sends what it has of content already actioned).
 * `actionsTaken` names the platform's copy of the actions Warden sent; they are not required to
 * be live actions still (an action archived since may be appealed).
 */
export function checkAppeal(body: Record<string, unknown>, catalog: InputCatalog, limits: ItemListLimits): InputCheck<AppealInput> {
  const problems: ErrorDetail[] = [];
  const tooLarge: ErrorDetail[] = [];
  const report: ProblemSink = (pointer, detail) => problems.push({ title: TITLE, detail, pointer });
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
  else if (!isJsonObject(item)) report('/actionedItem', 'expected a JSON object');
  else {
    const bytes = jsonBytes(item);
    if (bytes > limits.maxItemBytes) tooLarge.push(itemSizeProblem('/actionedItem', bytes, limits.maxItemBytes));
    const itemType = typeof item['typeId'] === 'string' ? catalog.itemTypes.get(item['typeId']) : undefined;
    const lenient = { id: item['id'], typeId: item['typeId'], data: item['data'], typeSchemaVariant: 'partial' };
    for (const p of validateItem(lenient, itemType, { pointer: '/actionedItem', knownItemTypeIds })) report(p.pointer, p.detail);
  }

  const actionsTaken = checkActionsTaken(body['actionsTaken'], limits, report);

  const reason = body['appealReason'];
  if (reason !== undefined && typeof reason !== 'string') report('/appealReason', 'expected a string');
  else if (typeof reason === 'string' && freeTextTooLong(reason)) report('/appealReason', `at most ${MAX_FREE_TEXT_LENGTH} characters`);

  const violatingPolicyIds = checkViolatingPolicies(body['violatingPolicies'], catalog, limits, report);
  const additionalItems = checkLenientItems('/additionalItems', body['additionalItems'], catalog.itemTypes, limits, report, tooLarge);

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

function checkAppellant(value: unknown, catalog: InputCatalog, report: ProblemSink): Appellant | undefined {
  if (value === undefined) return (report('/appealedBy', 'required field is missing'), undefined);
  if (!isJsonObject(value)) return (report('/appealedBy', 'expected a JSON object {id, typeId}'), undefined);
  return checkUserFields('/appealedBy', value, catalog.itemTypes, report) ? { id: value['id'] as string, typeId: value['typeId'] as string } : undefined;
}

function checkActionsTaken(value: unknown, limits: ItemListLimits, report: ProblemSink): string[] {
  const pointer = '/actionsTaken';
  if (value === undefined) return (report(pointer, 'required field is missing'), []);
  if (!checkList(pointer, value, limits.maxItemsPerList, report, 'expected an array of action ids')) return [];
  if (value.length === 0) return (report(pointer, 'expected at least one action id'), []);
  const ids: string[] = [];
  value.forEach((id: unknown, i) => {
    const issue = typeof id === 'string' ? idProblem(id) : 'expected a non-empty string';
    if (issue) report(`${pointer}/${i}`, issue);
    else if (!ids.includes(id as string)) ids.push(id as string);
  });
  return ids;
}

function checkViolatingPolicies(value: unknown, catalog: InputCatalog, limits: ItemListLimits, report: ProblemSink): string[] {
  const pointer = '/violatingPolicies';
  if (value === undefined || !checkList(pointer, value, limits.maxItemsPerList, report, 'expected an array of objects {id}')) return [];
  const ids: string[] = [];
  value.forEach((element: unknown, i) => {
    const at = `${pointer}/${i}`;
    if (!isJsonObject(element)) return report(at, 'expected an object {id}');
    const id = element['id'];
    if (typeof id !== 'string' || id === '') return report(`${at}/id`, 'expected a non-empty string');
    if (!catalog.policyIds.has(id)) return report(`${at}/id`, `unknown policy '${id}'`);
    if (!ids.includes(id)) ids.push(id);
  });
  return ids;
}
