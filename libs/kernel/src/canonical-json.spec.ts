import { createHash } from 'node:crypto';
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
});
