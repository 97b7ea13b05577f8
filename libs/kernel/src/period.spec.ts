import { describe, expect, it } from 'vitest';
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
      expect(checkPeriod(bad, undefined, NOW)).toMatchObject({ ok: false, problems: [{ pointer: '/from', detail: 'expected a date, YYYY-MM-DD (UTC)' }] });
    }
    expect(checkPeriod('2026-02-01', '2026-01-01', NOW)).toMatchObject({ ok: false, problems: [{ pointer: '/from' }] });
    expect(checkPeriod('2025-01-01', '2026-01-02', NOW)).toMatchObject({
      ok: false,
      problems: [{ pointer: '/from', detail: 'the period spans more than 366 days' }],
    });
    expect(checkPeriod('2025-01-01', '2026-01-01', NOW).ok).toBe(true);
  });
});
