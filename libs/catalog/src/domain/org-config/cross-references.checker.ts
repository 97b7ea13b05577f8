import type { Path, ProblemList } from './config-problems.js';
import { isId, listAt } from './raw-document.reader.js';

/**
 * Ids as written in the sections other entries refer to, valid entries or not, so that one broken
 * entry does not make every reference to it fail too. Built-in actions and queues are included.
 */
export interface DeclaredIds {
  itemTypes: ReadonlySet<string>;
  policies: ReadonlySet<string>;
  actions: ReadonlySet<string>;
  textBanks: ReadonlySet<string>;
  hashBanks: ReadonlySet<string>;
  queues: ReadonlySet<string>;
}

export interface RawField {
  name: string;
  type: unknown;
}

/** What the sections' checks need to know about the whole file. */
export interface CheckContext {
  problems: ProblemList;
  declared: DeclaredIds;
  /** The fields of each item type, by item type id (first declaration wins). */
  fieldsByItemType: ReadonlyMap<string, readonly RawField[]>;
}

export function checkReference(
  raw: Record<string, unknown>,
  key: string,
  known: ReadonlySet<string>,
  path: Path,
  kind: string,
  ctx: CheckContext,
): void {
  const id = raw[key];
  if (isId(id) && !known.has(id)) ctx.problems.add([...path, key], `unknown ${kind} "${id}"`);
}

export function checkReferenceList(
  raw: unknown,
  key: string,
  known: ReadonlySet<string>,
  path: Path,
  kind: string,
  ctx: CheckContext,
): void {
  listAt(raw, key).forEach((id, i) => {
    if (isId(id) && !known.has(id)) ctx.problems.add([...path, key, i], `unknown ${kind} "${id}"`);
  });
}
