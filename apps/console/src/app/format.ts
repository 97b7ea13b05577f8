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
