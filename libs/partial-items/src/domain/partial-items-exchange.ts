/**
 * The partial-items exchange (docs/partial-items.md): what Warden
 * POSTs to the customer's endpoint and how it reads the answer. Pure: no I/O, no framework.
 */

export interface ItemRef {
  readonly id: string;
  readonly typeId: string;
}

/** Why Warden asks: a partial item's rules need fields it lacks, a related item it never received, a moderator asked. */
export type ExchangeReason = 'missing-fields' | 'related-item' | 'console';

/** The request body, version 1. */
export interface PartialItemsRequest {
  readonly type: 'PARTIAL_ITEMS_REQUEST';
  readonly version: 1;
  readonly orgId: string;
  /** Also the `Service-Delivery-Id` header, inside the signed bytes: the same on every retry of the request. */
  readonly requestId: string;
  readonly reason: ExchangeReason;
  readonly items: readonly ItemRef[];
}

export function partialItemsRequest(orgId: string, requestId: string, reason: ExchangeReason, items: readonly ItemRef[]): PartialItemsRequest {
  return { type: 'PARTIAL_ITEMS_REQUEST', version: 1, orgId, requestId, reason, items: items.map((i) => ({ id: i.id, typeId: i.typeId })) };
}

/** A problem with the answer, at a JSON pointer into it (as in docs/api.md, "Errors"). */
export interface AnswerProblem {
  readonly pointer: string;
  readonly detail: string;
}

/** The answer's shape, checked: items to validate as submitted items, and the ones the customer says do not exist. */
export interface ReadAnswer {
  /** Each as the customer sent it (an Item of POST /api/v1/items/async/), with its index in `items`. */
  readonly items: ReadonlyArray<{ readonly index: number; readonly ref: ItemRef; readonly item: { readonly [key: string]: unknown } }>;
  readonly notFound: readonly ItemRef[];
}

const key = (ref: ItemRef) => `${ref.typeId}\u0000${ref.id}`;

/**
 * Reads the endpoint's 200 body: `{ items: [Item…], notFound?: [ItemIdentifier…] }`. Only the
 * envelope is checked here (JSON, members, that every item was asked for and comes once); each item
 * is then validated against its item type like a submitted item (ingestion's SubmitItemsCommand).
 */
export function readAnswer(
  body: string,
  asked: readonly ItemRef[],
  /** What a request body is checked for right after parsing (depth, sizes, `__proto__`): the same limits (docs/partial-items.md). */
  limits: (parsed: unknown) => AnswerProblem | undefined = () => undefined,
): { ok: true; answer: ReadAnswer } | { ok: false; problems: AnswerProblem[] } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return { ok: false, problems: [{ pointer: '', detail: 'the answer is not JSON' }] };
  }
  const beyond = limits(parsed);
  if (beyond) return { ok: false, problems: [beyond] };
  if (!isObject(parsed)) return { ok: false, problems: [{ pointer: '', detail: 'expected a JSON object {items, notFound?}' }] };
  const problems: AnswerProblem[] = [];
  for (const member of Object.keys(parsed)) {
    if (member !== 'items' && member !== 'notFound') problems.push({ pointer: `/${member}`, detail: 'unknown member' });
  }
  const wanted = new Set(asked.map(key));
  const seen = new Set<string>();
  const items: Array<ReadAnswer['items'][number]> = [];
  const notFound: ItemRef[] = [];
  const take = (value: unknown, pointer: string, into: (ref: ItemRef) => void) => {
    if (!isObject(value)) return problems.push({ pointer, detail: 'expected an object' });
    const { id, typeId } = value;
    if (typeof id !== 'string' || typeof typeId !== 'string') return problems.push({ pointer, detail: 'expected id and typeId strings' });
    const ref = { id, typeId };
    if (!wanted.has(key(ref))) return problems.push({ pointer, detail: `item ${typeId}/${id} was not asked for` });
    if (seen.has(key(ref))) return problems.push({ pointer, detail: `item ${typeId}/${id} is answered twice` });
    seen.add(key(ref));
    into(ref);
    return undefined;
  };
  const list = (member: 'items' | 'notFound'): unknown[] => {
    const value = parsed[member];
    if (value === undefined && member === 'notFound') return [];
    if (!Array.isArray(value)) {
      problems.push({ pointer: `/${member}`, detail: 'expected an array' });
      return [];
    }
    return value;
  };
  list('items').forEach((value, index) => take(value, `/items/${index}`, (ref) => items.push({ index, ref, item: value as { [key: string]: unknown } })));
  list('notFound').forEach((value, index) => take(value, `/notFound/${index}`, (ref) => notFound.push(ref)));
  return problems.length > 0 ? { ok: false, problems } : { ok: true, answer: { items, notFound } };
}

function isObject(value: unknown): value is { [key: string]: unknown } {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
