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

/**
 * The canonical text of a value nested less than MAX_RECURSION levels (TOO_DEEP past them).
 * Written for the audit chain, which canonicalizes every event of the log: numbers and booleans
 * are written directly, and an object's keys are sorted in place (insertion sort: a handful of
 * keys) rather than by Array's sort, which converts each key again for its comparator. Each leaf's
 * text is exactly JSON.stringify's (canonical-json.spec.ts compares the whole text with the plain
 * writer's over generated values). Strings go through JSON.stringify: testing them for characters
 * to escape first was no faster (measured).
 */
function canonicalText(v: unknown, depth: number): string {
  switch (typeof v) {
    case 'string':
      return JSON.stringify(v);
    case 'number':
      // JSON.stringify writes a finite number as ToString does (-0 as 0), any other as null.
      return Number.isFinite(v) ? String(v) : 'null';
    case 'boolean':
      return v ? 'true' : 'false';
    case 'object':
      break;
    default:
      // undefined, a function or a symbol: null, as before; a bigint throws, as JSON.stringify does.
      return JSON.stringify(v) ?? 'null';
  }
  if (v === null) return 'null';
  if (depth >= MAX_RECURSION) throw TOO_DEEP;
  if (Array.isArray(v)) {
    const length = v.length;
    if (length === 0) return '[]';
    let text = '[' + canonicalText(v[0], depth + 1);
    for (let i = 1; i < length; i++) text += ',' + canonicalText(v[i], depth + 1);
    return text + ']';
  }
  const object = v as Record<string, unknown>;
  const keys = sortedKeys(object);
  let text = '{';
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!;
    const child = object[key];
    if (child === undefined) continue;
    text += (text.length === 1 ? '' : ',') + JSON.stringify(key) + ':' + canonicalText(child, depth + 1);
  }
  return text + '}';
}

/** Objects with more keys than this are sorted by Array's sort (sortedKeys). */
const INSERTION_SORTED = 24;

/**
 * The object's own enumerable keys sorted by UTF-16 code units, as `Object.keys(o).sort()` sorts
 * them (the keys are distinct strings, so `<` orders them alike): in place by insertion for a
 * few keys, by Array's sort for many (insertion's quadratic time would let a hostile body with
 * thousands of keys in reverse order cost seconds).
 */
function sortedKeys(object: object): string[] {
  const keys = Object.keys(object);
  if (keys.length > INSERTION_SORTED) return keys.sort();
  for (let i = 1; i < keys.length; i++) {
    const key = keys[i]!;
    let j = i - 1;
    if (keys[j]! < key) continue;
    while (j >= 0 && keys[j]! > key) {
      keys[j + 1] = keys[j]!;
      j--;
    }
    keys[j + 1] = key;
  }
  return keys;
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
