import { describe, expect, it } from 'vitest';
import { checkReportWindow, windowDays } from './report-window.js';

const now = new Date('2026-03-10T12:00:00Z');

describe('appeals report window', () => {
  it('defaults to the 30 days up to now', () => {
    const checked = checkReportWindow(undefined, undefined, now);
    expect(checked).toEqual({ ok: true, window: { from: new Date('2026-02-08T12:00:00Z'), to: now } });
  });

  it('names every malformed parameter, and from after to, at its pointer', () => {
    const bad = checkReportWindow('yesterday', '2026-03-01', now);
    expect(bad.ok).toBe(false);
    expect(!bad.ok && bad.problems.map((p) => p.pointer)).toEqual(['/from', '/to']);
    const reversed = checkReportWindow('2026-03-02T00:00:00Z', '2026-03-01T00:00:00Z', now);
    expect(!reversed.ok && reversed.problems.map((p) => p.pointer)).toEqual(['/from']);
    const long = checkReportWindow('2024-01-01T00:00:00Z', '2026-01-01T00:00:00Z', now);
    expect(!long.ok && long.problems[0]?.detail).toMatch(/more than 366 days/);
  });

  it('splits a window into whole UTC days and the partial days at its ends', () => {
    const days = windowDays({ from: new Date('2026-03-01T12:00:00Z'), to: new Date('2026-03-03T23:59:59.999Z') });
    expect(days).toEqual([
      { day: '2026-03-01', whole: false },
      { day: '2026-03-02', whole: true },
      { day: '2026-03-03', whole: true },
    ]);
    expect(windowDays({ from: new Date('2026-03-01T00:00:00Z'), to: new Date('2026-03-01T10:00:00+02:00') })).toEqual([{ day: '2026-03-01', whole: false }]);
  });
});
