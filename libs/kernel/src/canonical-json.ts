import { createHash } from 'node:crypto';

/** Text is handed to the hash in pieces of about this size. */
const CHUNK = 64 * 1024;

/**
 * The SHA-256 (base64url) of a JSON value's canonical form: object keys sorted by UTF-16 code
 * units, no whitespace, strings and numbers as JSON.stringify writes them, array order kept. Two
 * values that differ only in key order or formatting digest alike (`{"a":1,"b":2}` and
 * `{ "b": 2.0, "a": 1 }`). Walks the value with its own stack: a deeply nested body (a hostile
 * request) cannot overflow the call stack here.
 */
export function canonicalJsonDigest(value: unknown): string {
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
