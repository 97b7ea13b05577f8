import { describe, expect, it } from 'vitest';
import { parseStreamName, streamCategory, streamName } from './stream-name.js';

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
});
