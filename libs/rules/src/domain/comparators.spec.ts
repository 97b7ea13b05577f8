import { describe, expect, it } from 'vitest';
import { compileComparator } from './comparators.js';

describe('comparators on dates and datetimes', () => {
  it('compare a datetime by the instant it names, with a fraction of any length that item validation accepts', () => {
    const after = compileComparator('GT', '2026-03-01T10:00:00Z');
    expect(after('2026-03-01T15:30:00.001000000000000000000000000+05:30')).toBe(true);
    expect(after('2026-03-01T15:29:59.999999999999999999999999999+05:30')).toBe(false);
    expect(after('2026-03-01T10:00:00,5Z')).toBe(true);
    expect(after('2026-03-01T11:00+01')).toBe(false);
  });

  it("EQUALS, NOT_EQUAL_TO and an array's CONTAINS compare a date or datetime value by its instant too: equal exactly when both LTE and GTE hold", () => {
    const value = '2026-03-01T00:00:00Z';
    const [equals, differs, contains, lte, gte] = (['EQUALS', 'NOT_EQUAL_TO', 'CONTAINS', 'LTE', 'GTE'] as const).map((c) => compileComparator(c, value));
    for (const same of [value, '2026-03-01T00:00:00.000Z', '2026-03-01T01:00:00+01:00', '2026-02-28T19:00-05:00', '2026-03-01']) {
      expect([equals!(same), differs!(same), contains!([same]), lte!(same), gte!(same)]).toEqual([true, false, true, true, true]);
    }
    for (const other of ['2026-03-01T00:00:00.001Z', '2026-03-01T00:00:00+01:00', 'not a date', 20260301]) {
      expect([equals!(other), differs!(other), contains!([other])]).toEqual([false, true, false]);
    }
    // A value that names no instant is compared as it is.
    expect(compileComparator('EQUALS', 'spam')('spam')).toBe(true);
    expect(compileComparator('EQUALS', 'spam')('SPAM')).toBe(false);
    expect(compileComparator('EQUALS', { a: [1, 2] })({ a: [1, 2] })).toBe(true);
  });
});
