// A thread of the RegexPool (regex-pool.ts): matches one pattern against one text, away from the
// thread that evaluates every organization's items. Plain TypeScript that Node runs as it is
// (the tests load this file; the bundle builds it as an entry of its own), importing only RE2JS.
import { RE2JS } from 're2js';

/**
 * A pattern of short literal terms that V8's engine matches (term-matcher.ts, NATIVE_PATTERN_PREFIX:
 * the same text, kept apart so that this file imports nothing but RE2JS): `(?native-<flags>)<source>`.
 */
const NATIVE_PATTERN_PREFIX = '(?native-';

/** What the thread compiles a pattern to: RE2, or V8's engine for a marked list of literal terms (flag `f`: the text's case folded first, as term-matcher.ts's foldCase). */
function compile(pattern: string): { test(text: string): boolean } {
  if (!pattern.startsWith(NATIVE_PATTERN_PREFIX)) return RE2JS.compile(pattern);
  const end = pattern.indexOf(')', NATIVE_PATTERN_PREFIX.length);
  const flags = pattern.slice(NATIVE_PATTERN_PREFIX.length, end);
  const regex = new RegExp(pattern.slice(end + 1), flags.replace('f', ''));
  if (!flags.includes('f')) return regex;
  return { test: (text) => regex.test(text.toLowerCase().replaceAll('ς', 'σ')) };
}

/**
 * A match of pattern `id` against `text`. The pool sends the pattern itself only when this thread
 * may not have it compiled: a list of 100,000 terms is a pattern of about a million characters,
 * and copying it to the thread with every item cost more than the match (docs/benchmarks.md,
 * "Large term lists").
 */
export interface RegexTask {
  /** The pattern's id (regex-pool.ts, patternId: a hash of its text; the tests' own numbers). */
  readonly id: string | number;
  /** The pattern's length: a compiled pattern of the same id and another length is not it (ids are hashes). */
  readonly chars?: number;
  readonly pattern?: string;
  readonly text: string;
}

/**
 * What the thread keeps compiled: past MAX_COMPILED patterns or MAX_COMPILED_CHARS characters in
 * all, the least recently used are dropped, but never one used within RECENT_MS. RE2 holds about
 * 58 bytes of state per character of a pattern (measured on a 100,000-term list: 67 MB, 2 s to
 * compile), so the budget bounds the memory of what is no longer in use at about 240 MB; patterns in
 * use stay whatever their size, as organizations taking turns would otherwise have each match
 * compile its list again.
 */
export const MAX_COMPILED = 1_000;
export const MAX_COMPILED_CHARS = 4 * 1024 * 1024;
export const RECENT_MS = 60_000;

const compiled = new Map<string | number, { readonly regex: { test(text: string): boolean }; readonly chars: number; usedAt: number }>();
let compiledChars = 0;

function remember(id: string | number, pattern: string, now: number): { test(text: string): boolean } {
  const regex = compile(pattern);
  // Another pattern under the same id (a hash's collision, told by its length) gives it up.
  const previous = compiled.get(id);
  if (previous !== undefined) {
    compiled.delete(id);
    compiledChars -= previous.chars;
  }
  compiled.set(id, { regex, chars: pattern.length, usedAt: now });
  compiledChars += pattern.length;
  for (const [oldest, entry] of compiled) {
    if (compiled.size <= MAX_COMPILED && compiledChars <= MAX_COMPILED_CHARS) break;
    // In the order of use: the first used recently means every later one was too.
    if (now - entry.usedAt < RECENT_MS) break;
    compiled.delete(oldest);
    compiledChars -= entry.chars;
  }
  return regex;
}

function compiledOf(id: string | number, chars: number | undefined, now: number): { test(text: string): boolean } | undefined {
  const entry = compiled.get(id);
  if (entry === undefined || (chars !== undefined && entry.chars !== chars)) return undefined;
  // Used now: to the end of the Map's order, which is the order of eviction.
  entry.usedAt = now;
  compiled.delete(id);
  compiled.set(id, entry);
  return entry.regex;
}

/** True or false as the pattern matches; null when the task names a pattern this thread does not have (the pool sends it then). */
export default function matchRegex(task: RegexTask): boolean | null {
  return matchRegexAt(task, Date.now());
}

/** matchRegex at the time `now` (the spec's clock). */
export function matchRegexAt(task: RegexTask, now: number): boolean | null {
  const regex = compiledOf(task.id, task.chars, now) ?? (task.pattern === undefined ? undefined : remember(task.id, task.pattern, now));
  return regex === undefined ? null : regex.test(task.text);
}
