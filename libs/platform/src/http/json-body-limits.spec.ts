import { describe, expect, it } from 'vitest';
import { findJsonBodyProblem, type JsonBodyLimits } from './json-body-limits.js';

const LIMITS: JsonBodyLimits = { maxDepth: 8, maxStringBytes: 1024, maxObjectMembers: 16 };
const check = (text: string, limits = LIMITS) => findJsonBodyProblem(JSON.parse(text), limits);
const nested = (levels: number, inner = '1') => '['.repeat(levels) + inner + ']'.repeat(levels);

describe('the limits of a parsed JSON body', () => {
  it('accepts ordinary bodies, scalars and empty containers', () => {
    expect(check('{"items":[{"id":"a","typeId":"post","data":{"text":"héllo 👋","n":1,"b":true,"z":null}}]}')).toBeUndefined();
    for (const text of ['1', '"text"', 'null', '[]', '{}', '[[],{}]']) expect(check(text)).toBeUndefined();
  });

  it('counts the body as level 1 and stops at the first container deeper than the limit', () => {
    expect(check(nested(8))).toBeUndefined();
    expect(check(nested(9))).toEqual({
      kind: 'too-deep',
      pointer: '/0/0/0/0/0/0/0/0',
      detail: 'nested more than 8 levels deep (objects and arrays; the body is level 1)',
    });
    expect(check(`{"a":{"b":{"c":{"d":{"e":{"f":{"g":{"h":{}}}}}}}}}`)?.pointer).toBe('/a/b/c/d/e/f/g/h');
  });

  it('walks without recursion: 100,000 levels are a loop, not a stack overflow', () => {
    const problem = check(nested(100_000), { ...LIMITS, maxDepth: 64 });
    expect(problem?.kind).toBe('too-deep');
    expect(problem?.pointer).toBe('/0'.repeat(64));
  });

  it('reports the first problem in document order', () => {
    expect(check('[[1],"ok",[[[[[[[[1]]]]]]]],"\\udc00"]')?.pointer).toBe('/2/0/0/0/0/0/0/0');
    expect(check('{"a":"\\ud800x","b":"\\udc00"}')?.pointer).toBe('/a');
  });

  it('refuses numbers beyond the double range, which JSON.parse reads as Infinity', () => {
    expect(check('{"items":[{"id":"n1","typeId":"post","data":{"text":"x","score":1e400}}]}')).toEqual({
      kind: 'not-finite',
      pointer: '/items/0/data/score',
      detail: 'the number is out of range: a number must be finite, at most about 1.8e308 in magnitude',
    });
    expect(check('[1,-1e999]')).toMatchObject({ kind: 'not-finite', pointer: '/1' });
    expect(check('1e400')).toMatchObject({ kind: 'not-finite', pointer: '' });
    expect(check('[1.7976931348623157e308,-1e308,5e-324,1e-400]')).toBeUndefined();
  });

  it('refuses strings that are not well-formed Unicode, values and member names', () => {
    expect(check('{"items":[{"id":"ok-1"},{"id":"bad\\udc00"}]}')).toEqual({
      kind: 'ill-formed',
      pointer: '/items/1/id',
      detail: 'the string is not well-formed Unicode: it holds a lone UTF-16 surrogate (an unpaired \\ud800-\\udfff escape)',
    });
    expect(check('"\\ud800"')).toMatchObject({ kind: 'ill-formed', pointer: '' });
    // A bad member name is reported at its object, so the pointer never echoes it.
    expect(check('{"data":{"x\\ud83d":1}}')).toMatchObject({ kind: 'ill-formed', pointer: '/data' });
    expect(check('{"pair":"\\ud83d\\udc4b"}')).toBeUndefined();
  });

  it('measures strings in UTF-8 bytes, values and member names', () => {
    expect(check(JSON.stringify({ s: 'x'.repeat(1024) }))).toBeUndefined();
    expect(check(JSON.stringify({ s: 'x'.repeat(1025) }))).toMatchObject({ kind: 'too-large', pointer: '/s' });
    // 342 characters of two bytes each: 684 bytes, within the limit; 513 of them: 1026 bytes.
    expect(check(JSON.stringify({ s: 'é'.repeat(342) }))).toBeUndefined();
    expect(check(JSON.stringify({ s: 'é'.repeat(513) }))).toEqual({
      kind: 'too-large',
      pointer: '/s',
      detail: 'the string has 1026 bytes; at most 1024 bytes (UTF-8) per string',
    });
    expect(check(JSON.stringify({ o: { ['k'.repeat(2000)]: 1 } }))).toMatchObject({ kind: 'too-large', pointer: '/o' });
  });

  it('refuses the shapes of prototype pollution, naming the member, and accepts the same names as plain data', () => {
    expect(check('{"data":{"__proto__":{"polluted":true}}}')).toEqual({
      kind: 'prototype-key',
      pointer: '/data/__proto__',
      detail: 'the member name "__proto__" is not accepted: it could change the prototype of an object',
    });
    expect(check('{"data":{"\\u005f_proto__":1}}')?.pointer).toBe('/data/__proto__');
    expect(check('[{"constructor":{"prototype":{"polluted":true}}}]')).toMatchObject({ kind: 'prototype-key', pointer: '/0/constructor/prototype' });
    expect(check('{"constructor":"Bob","prototype":{"a":1},"c":{"constructor":{"name":"x"}}}')).toBeUndefined();
  });

  it('escapes member names in pointers (RFC 6901)', () => {
    expect(check('{"a/b":{"c~d":"\\udc00"}}')?.pointer).toBe('/a~1b/c~0d');
  });

  it('counts the members of each object, the body included, and points at the first object over the limit', () => {
    const members = (n: number) => `{${Array.from({ length: n }, (_, i) => `"m${i}":${i}`).join(',')}}`;
    expect(check(members(16))).toBeUndefined();
    expect(check(members(17))).toEqual({ kind: 'too-large', pointer: '', detail: 'the object has 17 members; at most 16 members per object' });
    expect(check(`{"items":[{"id":"a","data":${members(16)}},{"id":"b","data":${members(40)}}]}`)).toEqual({
      kind: 'too-large',
      pointer: '/items/1/data',
      detail: 'the object has 40 members; at most 16 members per object',
    });
    // Arrays are bounded by the body's size and by the lists' own limits, not by this one.
    expect(check(`[${'1,'.repeat(100)}1]`)).toBeUndefined();
  });

  it('counts every value of the body, containers and the body included, against maxValues', () => {
    const limits = { ...LIMITS, maxValues: 10 };
    // The array and its 9 numbers: 10 values.
    expect(findJsonBodyProblem(JSON.parse(`[${'1,'.repeat(8)}1]`), limits)).toBeUndefined();
    const problem = {
      kind: 'too-large',
      pointer: '',
      detail: 'the body holds more than 10 values (strings, numbers, booleans, nulls, objects and arrays together)',
    };
    expect(findJsonBodyProblem(JSON.parse(`[${'1,'.repeat(9)}1]`), limits)).toEqual(problem);
    // Empty objects and arrays count as much as any value: the shape of a cheap, wide body.
    expect(findJsonBodyProblem(JSON.parse(`{"a":[${'{},'.repeat(4)}[]],"b":{"c":[null,true]}}`), limits)).toEqual(problem);
    expect(findJsonBodyProblem(JSON.parse(`{"a":[${'{},'.repeat(3)}[]],"b":{"c":[null,true]}}`), limits)).toBeUndefined();
    // Without the limit, none.
    expect(check(`[${'1,'.repeat(1000)}1]`)).toBeUndefined();
  });
});
