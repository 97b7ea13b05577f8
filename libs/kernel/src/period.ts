import { type ErrorDetail, invalidInput } from './errors.js';

/**
 * Periods of whole UTC days, as the day-bucketed reports take them: the transparency report and
 * statements (docs/transparency.md) and Insights (docs/insights.md). Both read one bucket per day,
 * hence the cap; each names its own error title.
 */

/** The longest period: one read per day of it. */
export const MAX_PERIOD_DAYS = 366;
/** A period without `from` covers this many days up to `to`. */
export const DEFAULT_PERIOD_DAYS = 30;
const DAY_MS = 86_400_000;

/** Whole UTC days, both ends included. */
export interface Period {
  readonly from: string;
  readonly to: string;
}

export type PeriodCheck = { readonly ok: true; readonly period: Period } | { readonly ok: false; readonly problems: ErrorDetail[] };

const DATE = /^\d{4}-\d{2}-\d{2}$/;
/**
 * The last day a period may name: the day after it must still be written YYYY-MM-DD, which every
 * read of a period's buckets compares as a string (after 9999-12-31 comes +010000-01-01).
 */
const LAST_DAY = '9999-12-30';
/** A real calendar day: 2026-13-01 and 2026-02-30 match the pattern but are none. */
const isDate = (value: string) => {
  if (!DATE.test(value) || value > LAST_DAY) return false;
  const time = Date.parse(`${value}T00:00:00Z`);
  return !Number.isNaN(time) && new Date(time).toISOString().slice(0, 10) === value;
};

/** Days from `from` to `to`, both included: counted, not enumerated (a period of centuries costs nothing to refuse). */
const dayCount = (period: Period): number => Math.round((Date.parse(`${period.to}T00:00:00Z`) - Date.parse(`${period.from}T00:00:00Z`)) / DAY_MS) + 1;

/**
 * `from` and `to` as given (query string or CLI): dates (YYYY-MM-DD, UTC), both optional (`to`
 * defaults to today, `from` to DEFAULT_PERIOD_DAYS days up to `to`), `from` not after `to`, at
 * most MAX_PERIOD_DAYS days. Every problem at once, each at its parameter, titled `title`.
 */
export function checkPeriod(from: unknown, to: unknown, now: Date, title = 'Invalid period'): PeriodCheck {
  const problems: ErrorDetail[] = [];
  const parse = (value: unknown, pointer: string): string | undefined => {
    if (value === undefined) return undefined;
    if (typeof value === 'string' && isDate(value)) return value;
    problems.push({ title, pointer, detail: `expected a date, YYYY-MM-DD (UTC), ${LAST_DAY} at the latest` });
    return undefined;
  };
  const parsedFrom = parse(from, '/from');
  const parsedTo = parse(to, '/to');
  if (problems.length > 0) return { ok: false, problems };
  const end = parsedTo ?? now.toISOString().slice(0, 10);
  const start = parsedFrom ?? dayPlus(end, -(DEFAULT_PERIOD_DAYS - 1));
  if (start > end) problems.push({ title, pointer: '/from', detail: `from is after to (${end})` });
  else if (dayCount({ from: start, to: end }) > MAX_PERIOD_DAYS)
    problems.push({ title, pointer: '/from', detail: `the period spans more than ${MAX_PERIOD_DAYS} days` });
  return problems.length > 0 ? { ok: false, problems } : { ok: true, period: { from: start, to: end } };
}

/** The period checkPeriod gives, or the invalid-input error with every problem (a query's error body, docs/api.md, "Errors"). */
export function validPeriod(from: unknown, to: unknown, now: Date, title?: string): Period {
  const checked = checkPeriod(from, to, now, title);
  if (!checked.ok) throw invalidInput(...checked.problems);
  return checked.period;
}

export const dayPlus = (day: string, days: number): string => new Date(Date.parse(`${day}T00:00:00Z`) + days * DAY_MS).toISOString().slice(0, 10);

/** Every day of the period, in order. */
export function periodDays(period: Period): string[] {
  return Array.from({ length: Math.max(0, dayCount(period)) }, (_, i) => dayPlus(period.from, i));
}
