import { parseIsoInstant } from '#warden/catalog/contracts';
import type { ErrorDetail } from '#warden/kernel';

const DAY_MS = 86_400_000;
/** A window with no `from` covers this many days up to `to`. */
export const DEFAULT_WINDOW_DAYS = 30;
/** The longest window: one read per day it spans, so a year at most. */
export const MAX_WINDOW_DAYS = 366;

export interface ReportWindow {
  readonly from: Date;
  readonly to: Date;
}

export type WindowCheck = { readonly ok: true; readonly window: ReportWindow } | { readonly ok: false; readonly problems: ErrorDetail[] };

const TITLE = 'Invalid report window';

/**
 * `from` and `to` as the query string gave them: ISO 8601 datetimes with a time part, both
 * optional (`to` defaults to now, `from` to DEFAULT_WINDOW_DAYS before `to`), `from` not after
 * `to`, at most MAX_WINDOW_DAYS apart. Every problem at once, each at its parameter.
 */
export function checkReportWindow(from: unknown, to: unknown, now: Date): WindowCheck {
  const problems: ErrorDetail[] = [];
  const parse = (value: unknown, pointer: string): Date | undefined => {
    if (value === undefined) return undefined;
    const instant = parseIsoInstant(value);
    if (!instant) problems.push({ title: TITLE, pointer, detail: 'expected an ISO 8601 datetime with a time part (2026-03-01T00:00:00Z)' });
    return instant;
  };
  const parsedFrom = parse(from, '/from');
  const parsedTo = parse(to, '/to');
  if (problems.length > 0) return { ok: false, problems };
  const end = parsedTo ?? now;
  const start = parsedFrom ?? new Date(end.getTime() - DEFAULT_WINDOW_DAYS * DAY_MS);
  if (start.getTime() > end.getTime()) {
    problems.push({ title: TITLE, pointer: '/from', detail: `from is after to (${end.toISOString()})` });
  } else if (end.getTime() - start.getTime() > MAX_WINDOW_DAYS * DAY_MS) {
    problems.push({ title: TITLE, pointer: '/from', detail: `the window spans more than ${MAX_WINDOW_DAYS} days` });
  }
  return problems.length > 0 ? { ok: false, problems } : { ok: true, window: { from: start, to: end } };
}

/**
 * The UTC days a window touches, each whole (inside the window from its first to its last
 * millisecond) or partial (cut by `from` or `to`).
 */
export function windowDays(window: ReportWindow): Array<{ day: string; whole: boolean }> {
  const days: Array<{ day: string; whole: boolean }> = [];
  const first = Date.UTC(window.from.getUTCFullYear(), window.from.getUTCMonth(), window.from.getUTCDate());
  for (let start = first; start <= window.to.getTime(); start += DAY_MS) {
    const whole = start >= window.from.getTime() && start + DAY_MS - 1 <= window.to.getTime();
    days.push({ day: new Date(start).toISOString().slice(0, 10), whole });
  }
  return days;
}
