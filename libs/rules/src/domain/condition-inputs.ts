/**
 * What a leaf condition's input resolves to on an item (docs/rules.md, "The condition model"):
 * a field, or a built-in input (ALL_TEXT, ANY_IMAGE, CREATOR, ITEM, the report's routing inputs),
 * and which declared fields a partial item lacks for it (docs/partial-items.md).
 */
import type { LeafCondition } from '#warden/catalog/contracts';
import { ownValue } from '#warden/kernel';
import type { EvaluatedItem } from './evaluation.model.js';

/** The declared fields a leaf's input reads that a partial item does not carry; null when it carries them all. */
export function missingInputs(leaf: LeafCondition, item: EvaluatedItem): readonly string[] | null {
  const input = leaf.input;
  const absent = (names: readonly string[]) => {
    const missing = names.filter((name) => !Object.hasOwn(item.data, name));
    return missing.length === 0 ? null : missing;
  };
  const declared = (type?: string) => item.itemType.fields.filter((f) => type === undefined || f.type === type).map((f) => f.name);
  if ('field' in input) return absent([input.field]);
  switch (input.builtin) {
    case 'ALL_TEXT':
      return absent(declared('STRING'));
    case 'ANY_IMAGE': {
      // A declared `images` is read whatever its declared type (collectImages, below).
      const imagesOfAnotherType = item.itemType.fields.some((f) => f.name === IMAGES_KEY && f.type !== 'IMAGE');
      return absent([...declared('IMAGE'), ...(imagesOfAnotherType ? [IMAGES_KEY] : [])]);
    }
    case 'ITEM':
      return absent(declared());
    case 'CREATOR': {
      const role = item.itemType.roles?.['creator'];
      return item.creator === null && typeof role === 'string' ? absent([role]) : null;
    }
    default:
      return null;
  }
}

export function isAbsent(value: unknown): boolean {
  return value == null || (Array.isArray(value) && value.length === 0);
}

function isRecord(value: unknown): value is { readonly [key: string]: unknown } {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

interface DerivedInputs {
  allText?: readonly string[] | null;
  anyImage?: readonly unknown[] | null;
  item?: { id: string; typeId: string; data: EvaluatedItem['data'] };
}

/** Derived inputs are computed once per item and shared by every rule evaluating it. */
const derivedInputs = new WeakMap<EvaluatedItem, DerivedInputs>();

function derived(item: EvaluatedItem): DerivedInputs {
  let inputs = derivedInputs.get(item);
  if (inputs === undefined) {
    inputs = {};
    derivedInputs.set(item, inputs);
  }
  return inputs;
}

/**
 * Arrays resolve to arrays: the evaluator treats any array value as "any element passes".
 * REPORT_REASON, REPORTED_POLICY and REPORT_COUNT come from `data.__report.{reason, policyId,
 * count}`, which the routing of reports puts on the item it evaluates; absent elsewhere.
 */
export function resolveInput(leaf: LeafCondition, item: EvaluatedItem): unknown {
  const input = leaf.input;
  if ('field' in input) return ownValue(item.data, input.field);
  switch (input.builtin) {
    case 'ALL_TEXT': {
      const inputs = derived(item);
      if (inputs.allText === undefined) inputs.allText = collectAllText(item);
      return inputs.allText;
    }
    case 'ANY_IMAGE': {
      const inputs = derived(item);
      if (inputs.anyImage === undefined) inputs.anyImage = collectImages(item);
      return inputs.anyImage;
    }
    case 'CREATOR':
      return item.creator;
    case 'ITEM': {
      const inputs = derived(item);
      inputs.item ??= { id: item.id, typeId: item.typeId, data: item.data };
      return inputs.item;
    }
    case 'REPORT_REASON':
      return reportValue(item, 'reason');
    case 'REPORTED_POLICY':
      return reportValue(item, 'policyId');
    case 'REPORT_COUNT':
      return reportValue(item, 'count');
    default:
      return undefined;
  }
}

function reportValue(item: EvaluatedItem, key: string): unknown {
  const report = ownValue(item.data, '__report');
  return isRecord(report) ? ownValue(report, key) : undefined;
}

function collectAllText(item: EvaluatedItem): readonly string[] | null {
  const texts: string[] = [];
  for (const field of item.itemType.fields) {
    if (field.type !== 'STRING') continue;
    const value = ownValue(item.data, field.name);
    if (typeof value === 'string') texts.push(value);
    else if (Array.isArray(value)) for (const element of value) if (typeof element === 'string') texts.push(element);
  }
  return texts.length === 0 ? null : texts;
}

const IMAGES_KEY = 'images';

function collectImages(item: EvaluatedItem): readonly unknown[] | null {
  const images: unknown[] = [];
  let imagesCollected = false;
  const add = (value: unknown) => {
    if (Array.isArray(value)) {
      for (const element of value) if (element != null) images.push(element);
    } else if (value != null) images.push(value);
  };
  for (const field of item.itemType.fields) {
    if (field.type !== 'IMAGE') continue;
    if (field.name === IMAGES_KEY) imagesCollected = true;
    add(ownValue(item.data, field.name));
  }
  // `data.images` is an array of image URLs whatever the item type declares it as: validated so,
  // hashed and shown as media so (docs/rules.md, "Inputs"); collected here unless it was above.
  if (!imagesCollected) add(ownValue(item.data, IMAGES_KEY));
  return images.length === 0 ? null : images;
}
