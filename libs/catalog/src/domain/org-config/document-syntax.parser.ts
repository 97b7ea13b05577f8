import { visit } from 'jsonc-parser';
import { parseDocument } from 'yaml';
import { errorMessage } from './config-problems.js';

export type DocumentFormat = 'yaml' | 'json';

export type SyntaxResult = { ok: true; value: unknown } | { ok: false; message: string };

/**
 * Deeper than any configuration needs (a condition set nested 30 times is about 60 levels): what
 * reads the document next walks it recursively, so a deeper file is refused whole, as a request
 * body is (docs/api.md, "Request limits"), instead of overflowing the stack.
 */
export const MAX_DOCUMENT_DEPTH = 64;

/** The text as plain data; a syntax error is one problem for the whole file. */
export function parseSyntax(text: string, format: DocumentFormat): SyntaxResult {
  const parsed = format === 'json' ? parseJson(text) : parseYaml(text);
  if (parsed.ok && deeperThan(parsed.value, MAX_DOCUMENT_DEPTH)) {
    return { ok: false, message: `invalid ${format === 'json' ? 'JSON' : 'YAML'}: nested more than ${MAX_DOCUMENT_DEPTH} levels deep` };
  }
  if (parsed.ok && format === 'json') {
    // JSON.parse keeps the last of two equal keys: an override could hide in review. YAML refuses them.
    const duplicate = firstDuplicateKey(text);
    if (duplicate !== undefined) return { ok: false, message: `invalid JSON: the key "${duplicate.key}" appears twice in one object (line ${duplicate.line})` };
  }
  return parsed;
}

function parseJson(text: string): SyntaxResult {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (error) {
    return { ok: false, message: `invalid JSON: ${withJsonLine(errorMessage(error), text)}` };
  }
}

/** Walked without recursion: the point is a document too deep to walk recursively. */
function deeperThan(value: unknown, limit: number): boolean {
  const stack: Array<readonly [unknown, number]> = [[value, 1]];
  while (stack.length > 0) {
    const [current, depth] = stack.pop()!;
    if (typeof current !== 'object' || current === null) continue;
    if (depth > limit) return true;
    for (const child of Array.isArray(current) ? current : Object.values(current)) stack.push([child, depth + 1]);
  }
  return false;
}

/** The first key written twice in one object of a JSON text (well-formed, and not too deep: the scan recurses). */
function firstDuplicateKey(text: string): { key: string; line: number } | undefined {
  const open: Array<Set<string>> = [];
  let found: { key: string; line: number } | undefined;
  visit(text, {
    onObjectBegin: () => void open.push(new Set()),
    onObjectEnd: () => void open.pop(),
    onObjectProperty: (key, _offset, _length, startLine) => {
      const keys = open.at(-1);
      if (keys === undefined) return;
      if (keys.has(key)) found ??= { key, line: startLine + 1 };
      keys.add(key);
    },
  });
  return found;
}

/** V8 reports a character offset; a line number is what an author can act on. */
function withJsonLine(message: string, text: string): string {
  const offset = /at position (\d+)/.exec(message);
  if (offset === null || /\bline\b/.test(message)) return message;
  const before = text.slice(0, Number(offset[1]));
  const line = before.split('\n').length;
  const column = before.length - before.lastIndexOf('\n');
  return `${message} (line ${line} column ${column})`;
}

function parseYaml(text: string): SyntaxResult {
  const document = parseDocument(text);
  // Warnings too: an unknown tag (`!secret x`, `!!int x`) would otherwise be read as a plain string
  // and an unknown directive ignored, so that the file applied is not the file the author meant.
  const [error] = [...document.errors, ...document.warnings];
  // The yaml message's first line carries the position; the rest is a source excerpt.
  if (error !== undefined) return { ok: false, message: `invalid YAML: ${error.message.split('\n')[0]!.replace(/:$/, '')}` };
  try {
    return { ok: true, value: document.toJS() };
  } catch (toJsError) {
    return { ok: false, message: `invalid YAML: ${errorMessage(toJsError)}` };
  }
}
