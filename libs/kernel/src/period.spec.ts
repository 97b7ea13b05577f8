import { describe, expect, it, vi } from 'vitest';
import { checkPeriod, periodDays } from './period.js';

const NOW = new Date('2026-06-30T12:00:00Z');

describe('report periods', () => {
  it('takes whole UTC days, both ends included, with defaults', () => {
    expect(checkPeriod('2026-01-01', '2026-01-03', NOW)).toEqual({ ok: true, period: { from: '2026-01-01', to: '2026-01-03' } });
    expect(checkPeriod(undefined, undefined, NOW)).toEqual({ ok: true, period: { from: '2026-06-01', to: '2026-06-30' } });
    expect(periodDays({ from: '2026-02-27', to: '2026-03-01' })).toEqual(['2026-02-27', '2026-02-28', '2026-03-01']);
  });

  it('refuses what is no day, a reversed period and one over 366 days, each at its parameter', () => {
    for (const bad of ['2026-13-01', '2026-02-30', 'yesterday', '2026-01-01T00:00:00Z']) {
      expect(checkPeriod(bad, undefined, NOW)).toMatchObject({
        ok: false,
        problems: [{ pointer: '/from', detail: 'expected a date, YYYY-MM-DD (UTC), 9999-12-30 at the latest' }],
      });
    }
    expect(checkPeriod('2026-02-01', '2026-01-01', NOW)).toMatchObject({ ok: false, problems: [{ pointer: '/from' }] });
    expect(checkPeriod('2025-01-01', '2026-01-02', NOW)).toMatchObject({
      ok: false,
      problems: [{ pointer: '/from', detail: 'the period spans more than 366 days' }],
    });
    expect(checkPeriod('2025-01-01', '2026-01-01', NOW).ok).toBe(true);
  });

  it('refuses 9999-12-31, whose next day is no longer YYYY-MM-DD (the days of such a period never ended), and takes the day before', () => {
    expect(checkPeriod('9999-12-31', '9999-12-31', NOW)).toMatchObject({
      ok: false,
      problems: [{ pointer: '/from' }, { pointer: '/to', detail: 'expected a date, YYYY-MM-DD (UTC), 9999-12-30 at the latest' }],
    });
    expect(checkPeriod('9999-12-29', '9999-12-30', NOW)).toEqual({ ok: true, period: { from: '9999-12-29', to: '9999-12-30' } });
    expect(periodDays({ from: '9999-12-29', to: '9999-12-30' })).toEqual(['9999-12-29', '9999-12-30']);
  });

  it('refuses a period of centuries by counting its days, not by writing each one out', () => {
    const written = vi.spyOn(Date.prototype, 'toISOString');
    try {
      expect(checkPeriod('0001-01-01', '9999-12-30', NOW)).toMatchObject({ ok: false, problems: [{ detail: 'the period spans more than 366 days' }] });
      // The two dates checked, nothing per day (it wrote out 3.65 million days before refusing).
      expect(written.mock.calls.length).toBeLessThanOrEqual(3);
    } finally {
      written.mockRestore();
    }
  });
});
