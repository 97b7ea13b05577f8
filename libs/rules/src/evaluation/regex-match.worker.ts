// A thread of the RegexPool (regex-pool.ts): matches one pattern against one text, away from the
// thread that evaluates every organization's items. Plain TypeScript that Node runs as it is
// (the tests load this file; the bundle builds it as an entry of its own), importing only RE2JS.
import { RE2JS } from 're2js';

/**
 * A match of pattern `id` against `text`. The pool sends the pattern itself only when this thread
 * may not have it compiled: a list of 100,000 terms is a pattern of about a million characters,
 * and copying it to the thread with every item cost more than the match (docs/benchmarks.md,
 * "Large term lists").
 */
export interface RegexTask {
  readonly id: number;
  readonly pattern?: string;
  readonly text: string;
}

/**
 * What the thread keeps compiled: at most MAX_COMPILED patterns of MAX_COMPILED_CHARS characters
 * in all, the least recently used dropped first (one larger than the budget is kept alone). RE2
 * holds about 58 bytes of state per character of a pattern (measured on a 100,000-term list: 67 MB),
 * so the budget bounds the thread's memory at about 240 MB; an organization's few patterns in
 * use recur and stay.
 */
export const MAX_COMPILED = 1_000;
export const MAX_COMPILED_CHARS = 4 * 1024 * 1024;

const compiled = new Map<number, { readonly regex: RE2JS; readonly chars: number }>();
let compiledChars = 0;

function remember(id: number, pattern: string): RE2JS {
  const regex = RE2JS.compile(pattern);
  compiled.set(id, { regex, chars: pattern.length });
  compiledChars += pattern.length;
  for (const [oldest, entry] of compiled) {
    if (oldest === id || (compiled.size <= MAX_COMPILED && compiledChars <= MAX_COMPILED_CHARS)) break;
    compiled.delete(oldest);
    compiledChars -= entry.chars;
  }
  return regex;
}

function compiledOf(id: number): RE2JS | undefined {
  const entry = compiled.get(id);
  if (entry === undefined) return undefined;
  // Used now: to the end of the Map's order, which is the order of eviction.
  compiled.delete(id);
  compiled.set(id, entry);
  return entry.regex;
}

/** True or false as the pattern matches; null when the task names a pattern this thread does not have (the pool sends it then). */
export default function matchRegex(task: RegexTask): boolean | null {
  const regex = compiledOf(task.id) ?? (task.pattern === undefined ? undefined : remember(task.id, task.pattern));
  return regex === undefined ? null : regex.test(task.text);
}
