/**
 * A URL as it may be logged, shown or kept in plaintext: scheme, host, port and path, without the
 * user info, query string or fragment, where webhook tokens and pre-signed signatures live.
 * `?…` marks a query string that was left out. A path (`/api/v1/x?y`) keeps its path. Anything
 * else could be a secret itself and is replaced.
 */
export function redactUrl(raw: string): string {
  if (raw.startsWith('/') && !raw.startsWith('//')) {
    const end = raw.search(/[?#]/);
    if (end === -1) return raw;
    return raw.slice(0, end) + (raw[end] === '?' && end + 1 < raw.length ? QUERY_MARK : '');
  }
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return NOT_A_URL;
  }
  return `${url.protocol}//${url.host}${url.pathname}${url.search === '' ? '' : QUERY_MARK}`;
}

const QUERY_MARK = '?…';
const NOT_A_URL = '[not a URL]';
