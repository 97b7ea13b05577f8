import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJsonDigest } from './canonical-json.js';

const sha = (text: string) => createHash('sha256').update(text).digest('base64url');

/** A copy of an object with its keys inserted in sorted order (JSON.stringify keeps insertion order). */
const sortedKeys = (v: unknown): unknown =>
  v !== null && typeof v === 'object' && !Array.isArray(v)
    ? Object.fromEntries(
        Object.keys(v)
          .sort()
          .map((k) => [k, (v as Record<string, unknown>)[k]]),
      )
    : v;

describe('canonicalJsonDigest', () => {
  it('digests the canonical text: keys sorted, no whitespace, arrays in order', () => {
    expect(canonicalJsonDigest({ b: [2, { d: 'x', c: null }], a: true })).toBe(sha('{"a":true,"b":[2,{"c":null,"d":"x"}]}'));
    expect(canonicalJsonDigest('hé"')).toBe(sha('"hé\\""'));
    expect(canonicalJsonDigest([])).toBe(sha('[]'));
    expect(canonicalJsonDigest({})).toBe(sha('{}'));
  });

  it('ignores key order and formatting, but not values, array order or types', () => {
    const base = canonicalJsonDigest(JSON.parse('{"a": 1, "b": {"x": [1, 2]}}'));
    expect(canonicalJsonDigest(JSON.parse('{"b":{"x":[1,2.0]},"a":1}'))).toBe(base);
    expect(canonicalJsonDigest({ a: 1, b: { x: [2, 1] } })).not.toBe(base);
    expect(canonicalJsonDigest({ a: '1', b: { x: [1, 2] } })).not.toBe(base);
    expect(canonicalJsonDigest({ a: 1, b: { x: [1, 2] }, c: null })).not.toBe(base);
  });

  it('keeps prototype-named keys as data and tells lone surrogates apart', () => {
    const withProto = JSON.parse('{"__proto__": {"x": 1}, "constructor": 2}') as object;
    expect(canonicalJsonDigest(withProto)).toBe(sha('{"__proto__":{"x":1},"constructor":2}'));
    expect(canonicalJsonDigest({ id: 'a\udc00' })).not.toBe(canonicalJsonDigest({ id: 'a\udc01' }));
  });

  it('walks values nested far deeper than the call stack allows', () => {
    let deep: unknown = 'leaf';
    for (let i = 0; i < 200_000; i++) deep = [deep];
    expect(canonicalJsonDigest(deep)).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it('digests alike on either side of the depth where the explicit stack takes over', () => {
    for (const depth of [255, 256, 257, 1000]) {
      let nested: unknown = { b: 1, a: [true, null] };
      for (let i = 0; i < depth; i++) nested = i % 2 === 0 ? [nested] : { z: nested, y: 'x' };
      expect(canonicalJsonDigest(nested)).toBe(sha(JSON.stringify(nested, (_key, v: unknown) => sortedKeys(v))));
    }
  });

  it('digests large values the same as their text, across hash chunks', () => {
    const value = { text: 'x'.repeat(200_000), list: Array.from({ length: 5000 }, (_, i) => ({ i })) };
    expect(canonicalJsonDigest(value)).toBe(sha(JSON.stringify({ list: value.list, text: value.text })));
  });

  it('writes exactly the text of the plain writer it replaced, over generated values', () => {
    // Unicode of every plane, lone surrogates, controls and the characters JSON escapes.
    const text = fc.oneof(
      fc.string({ unit: 'binary' }),
      fc.string({ unit: 'grapheme' }),
      fc.string({ unit: fc.constantFrom('"', '\\', '\n', '\u0000', '\u001f', '\u007f', '\u2028', '\ud800', '\udfff', 'a', 'é', '😀') }),
    );
    const number = fc.oneof(
      fc.double(),
      fc.integer(),
      fc.constantFrom(-0, 0, Number.MAX_SAFE_INTEGER + 2, -Number.MAX_VALUE, Number.MIN_VALUE, 1e21, 1e-7, 123456789012345680000, NaN, Infinity, -Infinity),
    );
    const leaf = fc.oneof(text, number, fc.boolean(), fc.constant(null), fc.constant(undefined));
    const { value } = fc.letrec((tie) => ({
      value: fc.oneof({ depthSize: 'small', withCrossShrink: true }, leaf, tie('array'), tie('object')),
      array: fc.array(tie('value'), { maxLength: 6 }),
      object: fc.oneof(
        fc.dictionary(fc.oneof(text, fc.constantFrom('__proto__', 'constructor', '0', '10', '9', '-1', 'a', 'B', '$sha256')), tie('value'), { maxKeys: 8 }),
        // Many keys: sorted by Array's sort, past the insertion sort's few.
        fc.dictionary(fc.string({ maxLength: 3 }), leaf, { minKeys: 20, maxKeys: 40 }),
      ),
    }));
    fc.assert(
      fc.property(value, (v) => {
        expect(canonicalJsonDigest(v)).toBe(sha(plainCanonicalText(v)));
      }),
      { numRuns: 500 },
    );
  });
});

/** The writer canonicalJsonDigest used before it was made faster (2026-12-01), kept to compare with. */
function plainCanonicalText(v: unknown): string {
  if (v === null || typeof v !== 'object') return JSON.stringify(v) ?? 'null';
  if (Array.isArray(v)) return '[' + v.map((x) => plainCanonicalText(x)).join(',') + ']';
  const object = v as Record<string, unknown>;
  const parts: string[] = [];
  for (const key of Object.keys(object).sort()) if (object[key] !== undefined) parts.push(JSON.stringify(key) + ':' + plainCanonicalText(object[key]));
  return '{' + parts.join(',') + '}';
}
