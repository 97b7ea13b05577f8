import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { malformedQueryError, parseQueryString } from './query-string.js';

/** What a WHATWG URL reads from a query: the reading Fastify's parser had for well-formed queries. */
function asUrlSearchParams(query: string): Record<string, string | string[]> {
  const result = Object.create(null) as Record<string, string | string[]>;
  for (const [name, value] of new URLSearchParams(query)) {
    const current = result[name];
    result[name] = current === undefined ? value : Array.isArray(current) ? [...current, value] : [current, value];
  }
  return result;
}

describe('parseQueryString', () => {
  it('reads a query as Fastify did: + is a space, a repeated name an array, a name alone an empty value', () => {
    const query = parseQueryString('id=a%20b+c&tag=x&tag=y&tag=z&flag&=v&&e=%C3%A9%F0%9F%98%80&sign=%2B1');
    expect({ ...query }).toEqual({ id: 'a b c', tag: ['x', 'y', 'z'], flag: '', '': 'v', e: 'é😀', sign: '+1' });
    expect(Object.getPrototypeOf(query)).toBeNull();
    expect(malformedQueryError(query)).toBeUndefined();
    expect({ ...parseQueryString('') }).toEqual({});
  });

  it('keeps __proto__ an ordinary name', () => {
    const query = parseQueryString('__proto__=x&constructor=y');
    expect(query['__proto__']).toBe('x');
    expect(({} as Record<string, unknown>)['x']).toBeUndefined();
  });

  it('sets aside what is not valid percent-encoded UTF-8 and refuses it with a pointer to each such parameter (issue 30)', () => {
    // A lone surrogate, an overlong '/', a truncated sequence, a byte that is no UTF-8 at all, an escape that is none.
    const query = parseQueryString('ok=1&id=%ED%A0%80&b=%C0%AF&c=%E2%82&d=%FF&e=%zz&f=100%&a%2Fb=%80&%FF=1');
    expect({ ...query }).toEqual({ ok: '1' });
    const error = malformedQueryError(query);
    expect(error?.status).toBe(400);
    expect(error?.type).toBe('/errors/invalid-user-input');
    expect(error?.details.map((d) => d.pointer)).toEqual(['/id', '/b', '/c', '/d', '/e', '/f', '/a~1b', '/%FF']);
    expect(error?.details[0]?.detail).toBe('The query parameter is not valid percent-encoded UTF-8');
  });

  it('reads every well-formed query as a URL does', () => {
    const part = fc.string({ unit: 'binary', maxLength: 8 }).map(encodeURIComponent);
    const pair = fc.tuple(part, fc.option(part)).map(([name, value]) => (value === null ? name : `${name}=${value}`));
    fc.assert(
      fc.property(fc.array(pair, { maxLength: 6 }), (pairs) => {
        const text = pairs.join('&').replaceAll('%20', '+');
        const query = parseQueryString(text);
        expect(malformedQueryError(query)).toBeUndefined();
        expect({ ...query }).toEqual(asUrlSearchParams(text));
      }),
    );
  });

  it('reads any query either as a URL does or not at all', () => {
    const text = fc.string({ unit: fc.constantFrom('a', 'b', '%', 'C', '3', 'A', '9', 'E', 'D', '8', '0', '+', '=', '&'), maxLength: 24 });
    fc.assert(
      fc.property(text, (query) => {
        const parsed = parseQueryString(query);
        if (malformedQueryError(parsed) === undefined) expect({ ...parsed }).toEqual(asUrlSearchParams(query));
      }),
    );
  });
});
