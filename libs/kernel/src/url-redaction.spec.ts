import { describe, expect, it } from 'vitest';
import { redactUrl } from './url-redaction.js';

describe('redactUrl', () => {
  it('keeps scheme, host, port and path, and marks a query string it leaves out', () => {
    expect(redactUrl('https://h.example/cb?token=s3cret')).toBe('https://h.example/cb?…');
    expect(redactUrl('https://bucket.s3.example:8443/a/b.jpg?X-Amz-Signature=abc&X-Amz-Credential=k')).toBe('https://bucket.s3.example:8443/a/b.jpg?…');
    expect(redactUrl('http://h.example/plain')).toBe('http://h.example/plain');
    expect(redactUrl('http://h.example')).toBe('http://h.example/');
  });

  it('drops user info and fragments', () => {
    expect(redactUrl('https://user:pa55@h.example/cb#frag')).toBe('https://h.example/cb');
    expect(redactUrl('https://user:pa55@h.example/cb?x=1#frag')).toBe('https://h.example/cb?…');
  });

  it('redacts the query string of a request path', () => {
    expect(redactUrl('/api/v1/callbacks/deliveries?status=dead&token=x')).toBe('/api/v1/callbacks/deliveries?…');
    expect(redactUrl('/api/v1/items/async/')).toBe('/api/v1/items/async/');
    expect(redactUrl('/a?')).toBe('/a');
    expect(redactUrl('/a#b')).toBe('/a');
  });

  it('never passes on what is not a URL', () => {
    expect(redactUrl('s3cret')).toBe('[not a URL]');
    expect(redactUrl('')).toBe('[not a URL]');
    expect(redactUrl('//h.example/x?token=s3cret')).toBe('[not a URL]');
  });
});
