import { type DomainError, type ErrorDetail, idProblem, invalidInput, partTooLarge } from '#warden/kernel';
import type { ItemTypeDefinition } from './catalog.model.js';
import { validateItem } from './item-validation.js';

/**
 * Checks shared by the customer routes that carry items and users beside the items they submit
 * (reports, appeals): every problem is reported with its pointer, so one answer names them all.
 */
export type ProblemSink = (pointer: string, detail: string) => void;

export interface ItemListLimits {
  /** Per item, as JSON (WARDEN_MAX_ITEM_BYTES). */
  readonly maxItemBytes: number;
  /** Per list: WARDEN_MAX_ITEMS_PER_REQUEST. */
  readonly maxItemsPerList: number;
}

/** An item of a request's context, stored leniently, as sent. */
export interface LenientItem {
  id: string;
  typeId: string;
  data: { [field: string]: unknown };
}

/** What a report or an appeal is checked against: the organization's live item types and policy ids. */
export interface InputCatalog {
  readonly itemTypes: ReadonlyMap<string, ItemTypeDefinition>;
  readonly policyIds: ReadonlySet<string>;
}

/** A request checked all at once: its input, or every problem (oversized items apart: 413). */
export type InputCheck<T> =
  { readonly ok: true; readonly input: T } | { readonly ok: false; readonly tooLarge: ErrorDetail[]; readonly problems: ErrorDetail[] };

/** The error a failed check answers: 413 when an item is too large, else 400 with every problem. */
export const rejectionOf = (failed: { readonly tooLarge: ErrorDetail[]; readonly problems: ErrorDetail[] }): DomainError =>
  failed.tooLarge.length > 0 ? partTooLarge(...failed.tooLarge) : invalidInput(...failed.problems);

/**
 * The `typeId`s a request names in these values (each an item or user reference, or a list of
 * them), to ask the catalog for them (it catches up when one is missing).
 */
export function namedTypeIds(...values: unknown[]): string[] {
  const typeIdOf = (v: unknown) => (isJsonObject(v) ? v['typeId'] : undefined);
  return values
    .flatMap((v) => (Array.isArray(v) ? v : [v]))
    .map(typeIdOf)
    .filter((t): t is string => typeof t === 'string');
}

export const isJsonObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The value's size as UTF-8 JSON (what WARDEN_MAX_ITEM_BYTES limits). */
export const jsonBytes = (value: unknown): number => Buffer.byteLength(JSON.stringify(value) ?? '', 'utf8');

export const itemSizeProblem = (pointer: string, bytes: number, maxItemBytes: number): ErrorDetail => ({
  title: 'Payload too large',
  detail: `the item has ${bytes} bytes as JSON; at most ${maxItemBytes} bytes per item`,
  pointer,
});

/** An array within the per-list limit; anything else is reported (and counts as no list). */
export function checkList(pointer: string, value: unknown, maxItems: number, report: ProblemSink, notAList = 'expected an array'): value is unknown[] {
  if (!Array.isArray(value)) return (report(pointer, notAList), false);
  if (value.length > maxItems) return (report(pointer, `at most ${maxItems} items (got ${value.length})`), false);
  return true;
}

/**
 * `{id, typeId}` of a user (a reporter, an appellant): a customer id (it becomes part of a
 * personal-data subject) and an item type of kind USER. True when both hold.
 */
export function checkUserFields(
  pointer: string,
  value: Record<string, unknown>,
  itemTypes: ReadonlyMap<string, ItemTypeDefinition>,
  report: ProblemSink,
): boolean {
  let ok = true;
  const fail = (at: string, detail: string) => {
    ok = false;
    report(at, detail);
  };
  const { id, typeId } = value;
  const idIssue = typeof id === 'string' ? idProblem(id) : 'expected a non-empty string';
  if (idIssue) fail(`${pointer}/id`, idIssue);
  if (typeof typeId !== 'string' || typeId === '') fail(`${pointer}/typeId`, 'expected a non-empty string');
  else {
    const type = itemTypes.get(typeId);
    if (!type) fail(`${pointer}/typeId`, `unknown item type '${typeId}'`);
    else if (type.kind !== 'USER') fail(`${pointer}/typeId`, `expected an item type of kind USER; '${typeId}' is ${type.kind}`);
  }
  return ok;
}

/**
 * A list of context items, held to their item types leniently (as `partial` items: required
 * fields are not enforced, the fields they carry must have their declared formats). Items over
 * the per-item size go to `tooLarge` (413); the others' problems to `report`.
 */
export function checkLenientItems(
  pointer: string,
  value: unknown,
  itemTypes: ReadonlyMap<string, ItemTypeDefinition>,
  limits: ItemListLimits,
  report: ProblemSink,
  tooLarge: ErrorDetail[],
): LenientItem[] {
  if (value === undefined || !checkList(pointer, value, limits.maxItemsPerList, report)) return [];
  const knownItemTypeIds = new Set(itemTypes.keys());
  const items: LenientItem[] = [];
  value.forEach((element: unknown, i) => {
    const at = `${pointer}/${i}`;
    if (!isJsonObject(element)) return report(at, 'expected a JSON object');
    const bytes = jsonBytes(element);
    if (bytes > limits.maxItemBytes) return tooLarge.push(itemSizeProblem(at, bytes, limits.maxItemBytes));
    const { id, typeId, data } = element;
    const itemType = typeof typeId === 'string' ? itemTypes.get(typeId) : undefined;
    const found = validateItem({ id, typeId, data, typeSchemaVariant: 'partial' }, itemType, { pointer: at, knownItemTypeIds });
    for (const p of found) report(p.pointer, p.detail);
    if (found.length === 0) items.push({ id: id as string, typeId: typeId as string, data: data as LenientItem['data'] });
  });
  return items;
}
