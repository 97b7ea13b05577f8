import { describe, expect, it } from 'vitest';
import { authnInstantOf } from './saml-identity.js';

describe('authnInstantOf (when the IdP authenticated the user)', () => {
  it('reads an xs:dateTime with its zone as an ISO time in UTC', () => {
    expect(authnInstantOf('2026-12-01T09:30:00Z')).toBe('2026-12-01T09:30:00.000Z');
    expect(authnInstantOf('2026-12-01T09:30:00.123456Z')).toBe('2026-12-01T09:30:00.123Z');
    expect(authnInstantOf('2026-12-01T10:30:00+01:00')).toBe('2026-12-01T09:30:00.000Z');
  });

  it('takes nothing else: no zone, a date alone, not a time, another type, absent', () => {
    for (const value of ['2026-12-01T09:30:00', '2026-12-01', 'yesterday', '2026-13-45T99:99:99Z', '', 1764581400000, undefined, null]) {
      expect(authnInstantOf(value), String(value)).toBeNull();
    }
  });
});
