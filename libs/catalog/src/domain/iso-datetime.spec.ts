import { describe, expect, it } from 'vitest';
import { parseIsoDateTime } from './iso-datetime.js';

/** The one ISO 8601 parser item validation and the rules engine's comparators share. */
describe('parseIsoDateTime', () => {
  it('reads dates and datetimes as UTC unless an offset says otherwise', () => {
    expect(parseIsoDateTime('2026-03-01')).toEqual({ millis: Date.UTC(2026, 2, 1), separator: null });
    expect(parseIsoDateTime('2026-03-01T10:20')).toEqual({ millis: Date.UTC(2026, 2, 1, 10, 20), separator: 'T' });
    expect(parseIsoDateTime('2026-03-01 10:20:30,5')?.millis).toBe(Date.UTC(2026, 2, 1, 10, 20, 30, 500));
    expect(parseIsoDateTime('2026-03-01t10:20:30.123456z')?.millis).toBe(Date.UTC(2026, 2, 1, 10, 20, 30, 123));
    expect(parseIsoDateTime('2026-03-01T10:20+02')?.millis).toBe(Date.UTC(2026, 2, 1, 8, 20));
    expect(parseIsoDateTime('2026-03-01T10:20-0130')?.millis).toBe(Date.UTC(2026, 2, 1, 11, 50));
  });

  it('keeps years below 100 as written', () => {
    expect(new Date(parseIsoDateTime('0050-01-01')!.millis).getUTCFullYear()).toBe(50);
  });

  it('refuses dates that do not exist and times out of range', () => {
    for (const text of ['2026-02-29', '2026-13-01', '2026-04-31', '2026-01-01T24:00', '2026-01-01T10:60', '2026-01-01T10:00:60', '2026-01-01T10:00+24']) {
      expect(parseIsoDateTime(text), text).toBeUndefined();
    }
    expect(parseIsoDateTime('2024-02-29')).toBeDefined();
  });

  it('refuses other shapes', () => {
    for (const text of ['', '2026-1-01', '2026-01-01T', '2026-01-01T10', '20260101', '2026-01-01X10:00', ' 2026-01-01']) {
      expect(parseIsoDateTime(text), text).toBeUndefined();
    }
  });
});
