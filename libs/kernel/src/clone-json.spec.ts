import { describe, expect, it } from 'vitest';
import { cloneJson } from './clone-json.js';
import type { JsonObject } from './events.js';

describe('cloneJson', () => {
  it('copies a JSON document deeply: changing the copy leaves the original as it was', () => {
    const original: JsonObject = { a: 1, s: 'x', t: true, n: null, list: [1, { b: [2, 3] }], nested: { c: { d: 'e' } } };
    const copy = cloneJson(original);
    expect(copy).toEqual(original);
    expect(copy).not.toBe(original);
    (copy['list'] as Array<{ b: number[] }>)[1]!.b.push(4);
    ((copy['nested'] as JsonObject)['c'] as JsonObject)['d'] = 'changed';
    copy['a'] = 2;
    expect(original).toEqual({ a: 1, s: 'x', t: true, n: null, list: [1, { b: [2, 3] }], nested: { c: { d: 'e' } } });
  });

  it('copies scalars and arrays as they are', () => {
    expect(cloneJson('text')).toBe('text');
    expect(cloneJson(0)).toBe(0);
    expect(cloneJson(null)).toBeNull();
    expect(cloneJson([[], {}])).toEqual([[], {}]);
  });

  it('keeps a key named __proto__ as a key, as JSON.parse does, without touching the prototype', () => {
    const parsed = JSON.parse('{"__proto__": {"polluted": true}, "k": 1}') as JsonObject;
    const copy = cloneJson(parsed);
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
    expect(Object.keys(copy)).toEqual(['__proto__', 'k']);
    expect(JSON.stringify(copy)).toBe(JSON.stringify(parsed));
    expect((copy as { polluted?: boolean }).polluted).toBeUndefined();
  });
});
