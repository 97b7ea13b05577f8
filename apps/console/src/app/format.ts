const DAY_MS = 86_400_000;
/** The UTC day (YYYY-MM-DD) of a time in milliseconds. */
export const isoDay = (time: number): string => new Date(time).toISOString().slice(0, 10);

/** The period a report page opens on: the last 30 UTC days up to today, as the server takes a period without `from` (docs/insights.md, "The charts"). */
export function lastThirtyDays(): { from: string; to: string } {
  const now = Date.now();
  return { from: isoDay(now - 29 * DAY_MS), to: isoDay(now) };
}

/** A timestamp in the reader's locale; a dash for "never". */
export const when = (iso: string | null | undefined): string => (iso ? new Date(iso).toLocaleString() : '—');

/**
 * The host of a callback URL. Only the host is shown: a URL's path and query may carry a
 * customer's secret token, and a list of deliveries is no place for it.
 */
export function hostOf(url: string | null): string {
  if (!url) return '—';
  try {
    return new URL(url).host;
  } catch {
    return 'not a valid URL';
  }
}

/** "3 h 20 min" from seconds; the oldest pending job's age. */
export function age(seconds: number | null): string {
  if (seconds === null) return '—';
  if (seconds < 60) return `${Math.round(seconds)} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return `${hours} h ${minutes % 60} min`;
  return `${Math.floor(hours / 24)} days`;
}

/** What a link or a note shows of a media URL: host and path, never the query string (often a pre-signed secret). */
export function shownUrl(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.host}${parsed.pathname}${parsed.search ? '?…' : ''}`;
  } catch {
    return 'an address that cannot be read';
  }
}
