import { describe, expect, it } from 'vitest';
import { UsageError } from './cli-command.js';
import { parseSharedOptionsAndFiles } from './command-options.js';
import { since } from './rule-run-commands.js';

describe('CLI options', () => {
  it('tells files from option values whether a value is given as --bank=x or --bank x', () => {
    expect(parseSharedOptionsAndFiles(['--bank=spam', '--org', 'acme', 'hashes.txt'])).toEqual({
      options: { bank: 'spam', org: 'acme' },
      files: ['hashes.txt'],
    });
    expect(parseSharedOptionsAndFiles(['--org=acme', 'hashes.txt', '--bank', 'b'])).toEqual({ options: { org: 'acme', bank: 'b' }, files: ['hashes.txt'] });
  });

  it('reads --since as UTC whatever the time zone, in the forms audit export reads; a date alone is its start', () => {
    expect(since({ since: '2026-03-01T10:00:00' })?.toISOString()).toBe('2026-03-01T10:00:00.000Z');
    expect(since({ since: '2026-03-01T10:00+02' })?.toISOString()).toBe('2026-03-01T08:00:00.000Z');
    expect(since({ since: '2026-03-01' })?.toISOString()).toBe('2026-03-01T00:00:00.000Z');
    expect(since({})).toBeUndefined();
    expect(() => since({ since: 'yesterday' })).toThrow(UsageError);
  });
});
