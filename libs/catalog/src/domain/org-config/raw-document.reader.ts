import { isRecord } from './config-problems.js';

// Cross-references and hashes are checked on the document as written, not on the parsed entries,
// so that an entry with a shape problem still has its references checked: every problem is reported.

export type RawEntry = { index: number; raw: Record<string, unknown> };

export function listAt(raw: unknown, key: string): unknown[] {
  const value = isRecord(raw) ? raw[key] : undefined;
  return Array.isArray(value) ? value : [];
}

/** The mappings of a list section with their positions; entries that are not mappings have a shape problem already. */
export function entriesOf(doc: Record<string, unknown>, section: string): RawEntry[] {
  return listAt(doc, section).flatMap((raw, index) => (isRecord(raw) ? [{ index, raw }] : []));
}

export function stringAt(raw: unknown, key: string): string | undefined {
  const value = isRecord(raw) ? raw[key] : undefined;
  return typeof value === 'string' ? value : undefined;
}

/** Values that are not ids at all already have a shape problem; only well-formed ids are looked up. */
export function isId(value: unknown): value is string {
  return typeof value === 'string' && /^\S+$/.test(value);
}

export function isOneOf<T extends string>(values: readonly T[], value: unknown): value is T {
  return (values as readonly unknown[]).includes(value);
}
