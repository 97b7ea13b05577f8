import { createHash, hash } from 'node:crypto';

/** Text is handed to the hash in pieces of about this size. */
const CHUNK = 64 * 1024;

/**
 * The SHA-256 (base64url) of a JSON value's canonical form: object keys sorted by UTF-16 code
 * units, no whitespace, strings and numbers as JSON.stringify writes them, array order kept. Two
 * values that differ only in key order or formatting digest alike (`{"a":1,"b":2}` and
 * `{ "b": 2.0, "a": 1 }`). A deeply nested body (a hostile request) cannot overflow the call
 * stack here: past MAX_RECURSION levels the value is walked with an explicit stack instead.
 */
export function canonicalJsonDigest(value: unknown): string {
  // Most values (events, request bodies) are shallow: written recursively, which is several times
  // faster than the explicit stack; only a value nested deeper than MAX_RECURSION takes the stack.
  let text: string;
  try {
    text = canonicalText(value, 0);
  } catch (error) {
    if (error !== TOO_DEEP) throw error;
    return deepDigest(value);
  }
  return hash('sha256', text, 'base64url');
}

/** Nesting past which the recursive writer hands over to the stack-based one. */
const MAX_RECURSION = 256;
const TOO_DEEP = Symbol('too deep');

function canonicalText(v: unknown, depth: number): string {
  if (v === null || typeof v !== 'object') return JSON.stringify(v) ?? 'null';
  if (depth >= MAX_RECURSION) throw TOO_DEEP;
  if (Array.isArray(v)) {
    let text = '[';
    for (let i = 0; i < v.length; i++) text += (i > 0 ? ',' : '') + canonicalText(v[i], depth + 1);
    return text + ']';
  }
  const object = v as Record<string, unknown>;
  const keys = Object.keys(object).sort();
  let text = '{';
  let first = true;
  for (const key of keys) {
    const child = object[key];
    if (child === undefined) continue;
    text += (first ? '' : ',') + JSON.stringify(key) + ':' + canonicalText(child, depth + 1);
    first = false;
  }
  return text + '}';
}

/** The same text as canonicalText, walked with its own stack: no nesting overflows the call stack. */
function deepDigest(value: unknown): string {
  const hash = createHash('sha256');
  let text = '';
  const write = (piece: string) => {
    text += piece;
    if (text.length >= CHUNK) {
      hash.update(text);
      text = '';
    }
  };
  // Pending work, last first: a value still to write, or text to write as it is.
  const stack: Array<{ readonly value: unknown } | string> = [{ value }];
  while (stack.length > 0) {
    const next = stack.pop()!;
    if (typeof next === 'string') {
      write(next);
      continue;
    }
    const v = next.value;
    if (v === null || typeof v !== 'object') {
      write(JSON.stringify(v) ?? 'null');
    } else if (Array.isArray(v)) {
      write('[');
      stack.push(']');
      for (let i = v.length - 1; i >= 0; i--) {
        stack.push({ value: v[i] });
        if (i > 0) stack.push(',');
      }
    } else {
      const object = v as Record<string, unknown>;
      const keys = Object.keys(object)
        .filter((k) => object[k] !== undefined)
        .sort();
      write('{');
      stack.push('}');
      for (let i = keys.length - 1; i >= 0; i--) {
        stack.push({ value: object[keys[i]!] });
        stack.push(JSON.stringify(keys[i]) + ':');
        if (i > 0) stack.push(',');
      }
    }
  }
  hash.update(text);
  return hash.digest('base64url');
}
