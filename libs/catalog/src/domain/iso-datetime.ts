/**
 * ISO 8601 dates and datetimes as Warden reads them, in one place: item validation's DATETIME
 * fields (item-validation.ts) and the rules engine's ordering comparators (LT, GT … on strings,
 * libs/rules/src/domain/comparators.ts) parse with this function, so that a value an item was
 * accepted with compares as the instant it names.
 *
 * `YYYY-MM-DD[(T|t| )hh:mm[:ss[(.|,)fff…]][Z|z|±hh[[:]mm]]]`: the date must exist (no month 13,
 * no February 30), hours ≤ 23, minutes and seconds ≤ 59, offsets ≤ 23:59. Without an offset the
 * time is read as UTC, so that the answer never depends on the server's time zone.
 */
const ISO_DATETIME = /^(\d{4})-(\d{2})-(\d{2})(?:([Tt ])(\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d+))?)?(?:([Zz])|([+-])(\d{2})(?::?(\d{2}))?)?)?$/;

export interface IsoDateTime {
  /** Milliseconds since the epoch (the fraction beyond milliseconds is dropped). */
  readonly millis: number;
  /** What separates the date from the time; null for a date alone. */
  readonly separator: 'T' | 't' | ' ' | null;
}

/** The instant an ISO 8601 date or datetime names; undefined for anything else. */
export function parseIsoDateTime(text: string): IsoDateTime | undefined {
  const match = ISO_DATETIME.exec(text);
  if (match === null) return undefined;
  const year = Number(match[1]);
  const month = Number(match[2]);
  const day = Number(match[3]);
  const hour = Number(match[5] ?? 0);
  const minute = Number(match[6] ?? 0);
  const second = Number(match[7] ?? 0);
  const millis = match[8] === undefined ? 0 : Number(match[8].slice(0, 3).padEnd(3, '0'));
  const offsetHours = Number(match[11] ?? 0);
  const offsetMinutes = Number(match[12] ?? 0);
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return undefined;
  if (hour > 23 || minute > 59 || second > 59 || offsetHours > 23 || offsetMinutes > 59) return undefined;
  const offset = (match[10] === '-' ? -1 : 1) * (offsetHours * 60 + offsetMinutes) * 60_000;
  let time = Date.UTC(year, month - 1, day, hour, minute, second, millis);
  // Date.UTC reads years 0-99 as 1900-1999.
  if (year < 100) time = new Date(time).setUTCFullYear(year);
  return { millis: time - offset, separator: (match[4] as IsoDateTime['separator'] | undefined) ?? null };
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}
