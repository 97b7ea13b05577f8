/**
 * Validation of one submitted Item (docs/rules.md, "Submitting items") against its item type
 * (docs/configuration-as-code.md, "The file", `itemTypes`). Pure: no I/O, no framework.
 *
 * Problems are returned in a stable order: `id`, `typeId`, `data` (the object itself, then the
 * declared fields in declaration order, then `data.images` when the type does not declare it),
 * `typeVersion`, `typeSchemaVariant`.
 */
import { idProblem, ownValue } from '#warden/kernel';
import type { FieldDefinition, FieldType, ItemTypeDefinition } from './catalog.model.js';
import { type IsoDateTime, parseIsoDateTime } from './iso-datetime.js';

export interface ItemProblem {
  /** RFC 6901 JSON pointer to the offending value, e.g. `/items/3/data/text`. */
  pointer: string;
  detail: string;
}

export interface SubmittedItem {
  id?: unknown;
  typeId?: unknown;
  data?: unknown;
  typeVersion?: unknown;
  typeSchemaVariant?: unknown;
}

export interface ValidateItemOptions {
  /** Pointer of this item inside the request, e.g. `/items/3` (`''` for a top-level item). */
  pointer: string;
  /** Every item type of the organization; RELATED_ITEM fields without `itemTypeIds` accept these. */
  knownItemTypeIds: ReadonlySet<string>;
}

export const TYPE_SCHEMA_VARIANTS = ['original', 'partial'] as const;
export type TypeSchemaVariant = (typeof TYPE_SCHEMA_VARIANTS)[number];

/** `data.images` is special (docs/hashing.md, "Fetching"): always an array of image URLs. */
const IMAGES_KEY = 'images';

const MESSAGES = {
  nonEmptyString: 'expected a non-empty string',
  string: 'expected a string',
  number: 'expected a number',
  boolean: 'expected a boolean',
  array: 'expected an array',
  object: 'expected a JSON object',
  url: 'expected an absolute http(s) URL',
  geohash: 'expected a geohash (1 to 12 characters of 0123456789bcdefghjkmnpqrstuvwxyz)',
  datetime: 'expected an ISO 8601 datetime with a time part',
  relatedItem: 'expected an object {id, typeId}',
  variant: "expected 'original' or 'partial'",
  required: 'required field is missing',
} as const;

export function validateItem(item: SubmittedItem, itemType: ItemTypeDefinition | undefined, options: ValidateItemOptions): ItemProblem[] {
  const problems: ItemProblem[] = [];
  const prefix = options.pointer;
  const report = (pointer: string, detail: string): void => {
    problems.push({ pointer, detail });
  };

  const idIssue = identifierProblem(item.id);
  if (idIssue) report(`${prefix}/id`, idIssue);

  const typeIdIssue = identifierProblem(item.typeId);
  if (typeIdIssue) report(`${prefix}/typeId`, typeIdIssue);
  else if (itemType === undefined) report(`${prefix}/typeId`, `unknown item type '${item.typeId as string}'`);

  // An unrecognised variant is reported below and validated as 'original' (the strict one).
  const partial = item.typeSchemaVariant === 'partial';

  const dataPointer = `${prefix}/data`;
  if (!isJsonObject(item.data)) {
    report(dataPointer, MESSAGES.object);
  } else {
    const data = item.data;
    let imagesDeclared = false;
    for (const field of itemType?.fields ?? []) {
      if (field.name === IMAGES_KEY) imagesDeclared = true;
      const pointer = `${dataPointer}/${escapePointerToken(field.name)}`;
      const value = ownValue(data, field.name);
      if (value === undefined || value === null) {
        if (field.required && !partial) report(pointer, MESSAGES.required);
        continue;
      }
      const before = problems.length;
      checkField(field, value, pointer, options.knownItemTypeIds, report);
      // A declared `images` field is still held to the `data.images` rule; skip it when the
      // declared check already complained, so one bad value yields one problem.
      if (field.name === IMAGES_KEY && problems.length === before) checkImages(value, pointer, report);
    }
    if (!imagesDeclared) {
      const images = ownValue(data, IMAGES_KEY);
      if (images !== undefined && images !== null) {
        checkImages(images, `${dataPointer}/${IMAGES_KEY}`, report);
      }
    }
    // Fields the type does not declare are accepted as they are.
  }

  // typeVersion: any string; a version different from the type's own is accepted.
  if (item.typeVersion !== undefined && typeof item.typeVersion !== 'string') {
    report(`${prefix}/typeVersion`, MESSAGES.string);
  }
  if (item.typeSchemaVariant !== undefined && !isTypeSchemaVariant(item.typeSchemaVariant)) {
    report(`${prefix}/typeSchemaVariant`, MESSAGES.variant);
  }

  return problems;
}

type Report = (pointer: string, detail: string) => void;

function checkField(field: FieldDefinition, value: unknown, pointer: string, knownItemTypeIds: ReadonlySet<string>, report: Report): void {
  if (!field.array) {
    checkValue(field, value, pointer, knownItemTypeIds, report);
    return;
  }
  if (!Array.isArray(value)) {
    report(pointer, MESSAGES.array);
    return;
  }
  for (let index = 0; index < value.length; index++) {
    checkValue(field, value[index], `${pointer}/${index}`, knownItemTypeIds, report);
  }
}

function checkValue(field: FieldDefinition, value: unknown, pointer: string, knownItemTypeIds: ReadonlySet<string>, report: Report): void {
  if (field.type === 'RELATED_ITEM') {
    checkRelatedItem(field, value, pointer, knownItemTypeIds, report);
    return;
  }
  const detail = scalarProblem(field.type, value);
  if (detail !== null) report(pointer, detail);
}

/** The problem with a value of a non-RELATED_ITEM field type, or null when it is fine. */
function scalarProblem(type: Exclude<FieldType, 'RELATED_ITEM'>, value: unknown): string | null {
  switch (type) {
    case 'STRING':
      return typeof value === 'string' ? null : MESSAGES.string;
    case 'NUMBER':
      return typeof value === 'number' && Number.isFinite(value) ? null : MESSAGES.number;
    case 'BOOLEAN':
      return typeof value === 'boolean' ? null : MESSAGES.boolean;
    case 'IMAGE':
    case 'AUDIO':
    case 'VIDEO':
    case 'URL':
      return isHttpUrl(value) ? null : MESSAGES.url;
    case 'GEOHASH':
      return isGeohash(value) ? null : MESSAGES.geohash;
    case 'DATETIME':
      return isIsoDateTime(value) ? null : MESSAGES.datetime;
  }
}

function checkRelatedItem(field: FieldDefinition, value: unknown, pointer: string, knownItemTypeIds: ReadonlySet<string>, report: Report): void {
  if (!isJsonObject(value)) {
    report(pointer, MESSAGES.relatedItem);
    return;
  }
  const id = ownValue(value, 'id');
  const typeId = ownValue(value, 'typeId');
  // A related item may be the item's creator, whose id becomes a key and a personal-data subject.
  const idIssue = identifierProblem(id);
  if (idIssue) report(`${pointer}/id`, idIssue);
  if (!isNonEmptyString(typeId)) {
    report(`${pointer}/typeId`, MESSAGES.nonEmptyString);
  } else if (field.itemTypeIds.length > 0) {
    if (!field.itemTypeIds.includes(typeId)) {
      report(`${pointer}/typeId`, `item type '${typeId}' is not allowed here (expected ${field.itemTypeIds.map((t) => `'${t}'`).join(', ')})`);
    }
  } else if (!knownItemTypeIds.has(typeId)) {
    report(`${pointer}/typeId`, `unknown item type '${typeId}'`);
  }
}

function checkImages(value: unknown, pointer: string, report: Report): void {
  if (!Array.isArray(value)) {
    report(pointer, MESSAGES.array);
    return;
  }
  for (let index = 0; index < value.length; index++) {
    if (!isHttpUrl(value[index])) report(`${pointer}/${index}`, MESSAGES.url);
  }
}

// ---------------------------------------------------------------------------------------------
// Formats

export function escapePointerToken(token: string): string {
  return token.replace(/~/g, '~0').replace(/\//g, '~1');
}

/** Ids become parts of stream names and keys (see idProblem). */
function identifierProblem(value: unknown): string | undefined {
  return typeof value === 'string' ? idProblem(value) : MESSAGES.nonEmptyString;
}

function isNonEmptyString(value: unknown): value is string {
  return typeof value === 'string' && value.length > 0;
}

function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isTypeSchemaVariant(value: unknown): value is TypeSchemaVariant {
  return (TYPE_SCHEMA_VARIANTS as readonly unknown[]).includes(value);
}

/**
 * An absolute http: or https: URL. The text must itself start with the scheme and `//`, so the
 * WHATWG parser's leniencies (surrounding spaces, `http:host`, backslashes) are not accepted.
 */
export function isHttpUrl(value: unknown): boolean {
  if (typeof value !== 'string' || !/^https?:\/\/[^/\\\s]/i.test(value)) return false;
  if (value !== value.trim()) return false;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return false;
  }
  return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname.length > 0;
}

const GEOHASH = /^[0-9b-hjkmnp-z]{1,12}$/i;

export function isGeohash(value: unknown): boolean {
  return typeof value === 'string' && GEOHASH.test(value);
}

/** A datetime with `T` between date and time (what a DATETIME field holds), not a date alone. */
const hasDateAndTime = (parsed: IsoDateTime | undefined): parsed is IsoDateTime =>
  parsed !== undefined && (parsed.separator === 'T' || parsed.separator === 't');

/**
 * ISO 8601 extended format with a date and a time: `YYYY-MM-DDThh:mm[:ss[.fff]][Z|±hh[:mm]]`.
 * The offset is optional (ISO 8601 allows local times); the date must exist (no month 13,
 * no February 30). Parsed by iso-datetime.ts, as the rules engine's comparators parse it.
 */
export function isIsoDateTime(value: unknown): boolean {
  return typeof value === 'string' && hasDateAndTime(parseIsoDateTime(value));
}

/**
 * The instant an ISO 8601 datetime (as isIsoDateTime accepts it) names, for query bounds: a comma
 * before the fraction and an offset of hours only are understood (JavaScript's Date parses
 * neither), and a time without an offset is read as UTC, so that the answer never depends on the
 * server's time zone. Undefined for anything else.
 */
export function parseIsoInstant(value: unknown): Date | undefined {
  if (typeof value !== 'string') return undefined;
  const parsed = parseIsoDateTime(value);
  return hasDateAndTime(parsed) ? new Date(parsed.millis) : undefined;
}

/**
 * A customer's datetime (an appeal's `appealedAt`, a report's `reportedAt`) as the UTC ISO string
 * a read model files it under, `fallback` (the event's own time) when it is not one. A projection
 * must not hand such a value to `Date`: it throws on what isIsoDateTime accepts (a comma before
 * the fraction, an offset of hours only), and one recorded event would then stop the projection
 * for every organization.
 */
export function utcIsoOf(value: unknown, fallback: string): string {
  return (parseIsoInstant(value) ?? parseIsoInstant(fallback) ?? new Date(0)).toISOString();
}
