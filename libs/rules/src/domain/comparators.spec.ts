import { describe, expect, it } from 'vitest';
import { compileComparator } from './comparators.js';

describe('ordering comparators on datetimes', () => {
  it('compare a datetime by the instant it names, with a fraction of any length that item validation accepts', () => {
    const after = compileComparator('GT', '2026-03-01T10:00:00Z');
    expect(after('2026-03-01T15:30:00.001000000000000000000000000+05:30')).toBe(true);
    expect(after('2026-03-01T15:29:59.999999999999999999999999999+05:30')).toBe(false);
    expect(after('2026-03-01T10:00:00,5Z')).toBe(true);
    expect(after('2026-03-01T11:00+01')).toBe(false);
  });
});
