// A thread of the RegexPool (regex-pool.ts): matches one pattern against one text, away from the
// thread that evaluates every organization's items. Plain TypeScript that Node runs as it is
// (the tests load this file; the bundle builds it as an entry of its own), importing only RE2JS.
import { RE2JS } from 're2js';

export interface RegexTask {
  readonly pattern: string;
  readonly text: string;
}

/** The same few patterns recur (an organization's rules): compiled once per thread, oldest dropped first. */
const MAX_COMPILED = 1_000;
const compiled = new Map<string, RE2JS>();

function compile(pattern: string): RE2JS {
  let regex = compiled.get(pattern);
  if (regex === undefined) {
    regex = RE2JS.compile(pattern);
    if (compiled.size >= MAX_COMPILED) compiled.delete(compiled.keys().next().value!);
    compiled.set(pattern, regex);
  }
  return regex;
}

export default function matchRegex(task: RegexTask): boolean {
  return compile(task.pattern).test(task.text);
}
