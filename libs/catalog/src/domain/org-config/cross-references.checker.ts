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

export function checkReference(raw: Record<string, unknown>, key: string, known: ReadonlySet<string>, path: Path, kind: string, ctx: CheckContext): void {
  checkId(raw[key], known, [...path, key], kind, ctx);
}

export function checkReferenceList(raw: unknown, key: string, known: ReadonlySet<string>, path: Path, kind: string, ctx: CheckContext): void {
  listAt(raw, key).forEach((id, i) => checkId(id, known, [...path, key, i], kind, ctx));
}

/** One referenced id: malformed ids are the shape checks' to report, unknown ones are reported here. */
function checkId(id: unknown, known: ReadonlySet<string>, at: Path, kind: string, ctx: CheckContext): void {
  if (isId(id) && !known.has(id)) ctx.problems.add(at, `unknown ${kind} "${id}"`);
}
