import { parseDocument } from 'yaml';
import { errorMessage } from './config-problems.js';

export type DocumentFormat = 'yaml' | 'json';

export type SyntaxResult = { ok: true; value: unknown } | { ok: false; message: string };

/** The text as plain data; a syntax error is one problem for the whole file. */
export function parseSyntax(text: string, format: DocumentFormat): SyntaxResult {
  return format === 'json' ? parseJson(text) : parseYaml(text);
}

function parseJson(text: string): SyntaxResult {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (error) {
    return { ok: false, message: `invalid JSON: ${withJsonLine(errorMessage(error), text)}` };
  }
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
  const [error] = document.errors;
  // The yaml message's first line carries the position; the rest is a source excerpt.
  if (error !== undefined) return { ok: false, message: `invalid YAML: ${error.message.split('\n')[0]!.replace(/:$/, '')}` };
  try {
    return { ok: true, value: document.toJS() };
  } catch (toJsError) {
    return { ok: false, message: `invalid YAML: ${errorMessage(toJsError)}` };
  }
}
