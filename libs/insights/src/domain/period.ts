import { type ErrorDetail, invalidInput } from '#warden/kernel';

/** The longest period Insights draws: one bucket read per day of it. */
export const MAX_PERIOD_DAYS = 366;
/** A period without `from` covers this many days up to `to`. */
export const DEFAULT_PERIOD_DAYS = 30;
const DAY_MS = 86_400_000;

/** Whole UTC days, both ends included. */
export interface Period {
  readonly from: string;
  readonly to: string;
}

const TITLE = 'Invalid filter';
const DATE = /^\d{4}-\d{2}-\d{2}$/;
/** A real calendar day: 2026-13-01 and 2026-02-30 match the pattern but are none. */
const isDate = (value: string) => {
  if (!DATE.test(value)) return false;
  const time = Date.parse(`${value}T00:00:00Z`);
  return !Number.isNaN(time) && new Date(time).toISOString().slice(0, 10) === value;
};

export const dayPlus = (day: string, days: number): string => new Date(Date.parse(`${day}T00:00:00Z`) + days * DAY_MS).toISOString().slice(0, 10);

/**
 * The period of `from` and `to` (YYYY-MM-DD, UTC, both optional: `to` defaults to today, `from`
 * to DEFAULT_PERIOD_DAYS days up to `to`), or the invalid-input error naming every problem at its
 * parameter (docs/api.md, "Errors").
 */
export function validPeriod(from: unknown, to: unknown, now: Date): Period {
  const problems: ErrorDetail[] = [];
  const parse = (value: unknown, pointer: string): string | undefined => {
    if (value === undefined) return undefined;
    if (typeof value === 'string' && isDate(value)) return value;
    problems.push({ title: TITLE, pointer, detail: 'expected a date, YYYY-MM-DD (UTC)' });
    return undefined;
  };
  const parsedFrom = parse(from, '/from');
  const parsedTo = parse(to, '/to');
  if (problems.length > 0) throw invalidInput(...problems);
  const end = parsedTo ?? now.toISOString().slice(0, 10);
  const start = parsedFrom ?? dayPlus(end, -(DEFAULT_PERIOD_DAYS - 1));
  if (start > end) throw invalidInput({ title: TITLE, pointer: '/from', detail: `from is after to (${end})` });
  if (periodDays({ from: start, to: end }).length > MAX_PERIOD_DAYS)
    throw invalidInput({ title: TITLE, pointer: '/from', detail: `the period spans more than ${MAX_PERIOD_DAYS} days` });
  return { from: start, to: end };
}

/** Every day of the period, in order. */
export function periodDays(period: Period): string[] {
  const days: string[] = [];
  for (let day = period.from; day <= period.to; day = dayPlus(day, 1)) days.push(day);
  return days;
}
