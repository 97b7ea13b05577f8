import { visit } from 'jsonc-parser';
import { parseDocument, visit as visitYaml } from 'yaml';
import { errorMessage } from './config-problems.js';

export type DocumentFormat = 'yaml' | 'json';

export type SyntaxResult = { ok: true; value: unknown } | { ok: false; message: string };

/**
 * Deeper than any configuration needs (a condition set nested 30 times is about 60 levels): what
 * reads the document next walks it recursively, so a deeper file is refused whole, as a request
 * body is (docs/api.md, "Request limits"), instead of overflowing the stack.
 */
export const MAX_DOCUMENT_DEPTH = 64;

/**
 * How many values YAML aliases may add to a document, beyond the nodes written in it. An alias
 * (`*b`) stands for the whole node it names: 99 aliases of one mapping of 1,000 lists of 100
 * numbers (a 210 KB file) made 10 million values, and `apply` took 32 s and 1.6 GB before it
 * said anything. A configuration that reuses a condition or a list a few times stays far below.
 */
export const MAX_ALIAS_EXPANSION = 100_000;

/** The text as plain data; a syntax error is one problem for the whole file. */
export function parseSyntax(text: string, format: DocumentFormat): SyntaxResult {
  const parsed = format === 'json' ? parseJson(text) : parseYaml(text);
  if (!parsed.ok) return parsed;
  const name = format === 'json' ? 'JSON' : 'YAML';
  // JSON has no aliases: its values are the ones written, which the file's size already bounds.
  const maxValues = parsed.written === undefined ? Infinity : parsed.written + MAX_ALIAS_EXPANSION;
  const shape = shapeProblem(parsed.value, MAX_DOCUMENT_DEPTH, maxValues);
  if (shape === 'depth') return { ok: false, message: `invalid ${name}: nested more than ${MAX_DOCUMENT_DEPTH} levels deep` };
  if (shape === 'size') {
    return {
      ok: false,
      message:
        `invalid ${name}: its aliases expand it to more than ${maxValues} values (${parsed.written} written, ` +
        `at most ${MAX_ALIAS_EXPANSION} more from aliases); write the repeated parts out, or repeat fewer of them`,
    };
  }
  if (parsed.ok && format === 'json') {
    // JSON.parse keeps the last of two equal keys: an override could hide in review. YAML refuses them.
    const duplicate = firstDuplicateKey(text);
    if (duplicate !== undefined) return { ok: false, message: `invalid JSON: the key "${duplicate.key}" appears twice in one object (line ${duplicate.line})` };
  }
  return parsed;
}

/** Parsed data, and for YAML how many nodes the text writes (an alias is one, whatever it names). */
type Parsed = { ok: true; value: unknown; written?: number } | { ok: false; message: string };

function parseJson(text: string): Parsed {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (error) {
    return { ok: false, message: `invalid JSON: ${withJsonLine(errorMessage(error), text)}` };
  }
}

/**
 * Whether the data is nested deeper than `maxDepth` or holds more than `maxValues` values (every
 * object, array and scalar, a shared one each time it is reached: as what reads the document
 * next walks it). Walked without recursion, the point being a document too deep to walk
 * recursively, and stopped at the first value past either limit, so an expansion is not walked
 * to its end.
 */
function shapeProblem(value: unknown, maxDepth: number, maxValues: number): 'depth' | 'size' | undefined {
  const stack: Array<readonly [unknown, number]> = [[value, 1]];
  let values = 0;
  while (stack.length > 0) {
    const [current, depth] = stack.pop()!;
    if (++values > maxValues) return 'size';
    if (typeof current !== 'object' || current === null) continue;
    if (depth > maxDepth) return 'depth';
    for (const child of Array.isArray(current) ? current : Object.values(current)) stack.push([child, depth + 1]);
  }
  return undefined;
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

function parseYaml(text: string): Parsed {
  const document = parseDocument(text);
  // Warnings too: an unknown tag (`!secret x`, `!!int x`) would otherwise be read as a plain string
  // and an unknown directive ignored, so that the file applied is not the file the author meant.
  const [error] = [...document.errors, ...document.warnings];
  // The yaml message's first line carries the position; the rest is a source excerpt.
  if (error !== undefined) return { ok: false, message: `invalid YAML: ${error.message.split('\n')[0]!.replace(/:$/, '')}` };
  let written = 0;
  visitYaml(document, {
    Node: () => {
      written++;
    },
  });
  try {
    // yaml resolves an alias to the very value its anchor names (shared, not copied): the
    // expansion is counted by the walk in parseSyntax, not here.
    return { ok: true, value: document.toJS(), written };
  } catch (toJsError) {
    return { ok: false, message: `invalid YAML: ${errorMessage(toJsError)}` };
  }
}
