import { describe, expect, it } from 'vitest';
import { idProblem, MAX_ID_LENGTH, parseStreamName, streamCategory, streamName } from './stream-name.js';

describe('stream names', () => {
  it('joins percent-encoded id parts with ":" after a snake_case category', () => {
    expect(streamName('item', 'acme', 'post', 'abc:1')).toBe('item-acme:post:abc%3A1');
    expect(streamName('review_job', 'acme', 'a-b')).toBe('review_job-acme:a%2Db');
  });

  it('never lets two entities share a stream', () => {
    expect(streamName('item', 'a:b', 'c')).not.toBe(streamName('item', 'a', 'b:c'));
    expect(streamName('item', 'a-b')).not.toBe(streamName('item_a', 'b'));
  });

  it('round-trips and always finds the category before the first "-"', () => {
    const name = streamName('user_strikes', 'acme', 'user:1-x', 'ünï code/%');
    expect(parseStreamName(name)).toEqual({ category: 'user_strikes', idParts: ['acme', 'user:1-x', 'ünï code/%'] });
    expect(streamCategory(name)).toBe('user_strikes');
  });

  it('refuses a category that is not snake_case', () => {
    expect(() => streamName('Item', 'x')).toThrow();
    expect(() => streamName('item-x', 'y')).toThrow();
  });

  it('refuses an id part that has no UTF-8 form with an error of its own, not a URIError', () => {
    expect(() => streamName('item', 'acme', 'post', 'bad\udc00')).toThrow('A stream id part of item is not well-formed Unicode');
  });
});

describe('customer-given ids', () => {
  it('accepts any non-empty, well-formed id without control characters, up to the length limit', () => {
    for (const id of ['post-123', 'ünï code/%:-', '👋', 'x'.repeat(MAX_ID_LENGTH)]) expect(idProblem(id)).toBeUndefined();
  });

  it.each([
    ['', 'expected a non-empty string'],
    ['x'.repeat(MAX_ID_LENGTH + 1), `expected at most 256 characters, got 257`],
    ['bad\udc00', 'expected well-formed Unicode, got a lone UTF-16 surrogate'],
    ['\ud83d', 'expected well-formed Unicode, got a lone UTF-16 surrogate'],
    ['a\u0000b', 'expected no control characters'],
    ['line\nbreak', 'expected no control characters'],
    ['del\u007f', 'expected no control characters'],
    ['c1\u0085', 'expected no control characters'],
  ])('refuses %j: %s', (id, problem) => {
    expect(idProblem(id)).toBe(problem);
  });
});
