/**
 * Whether `url` names the ACS at `acsUrl`, as URLs: scheme and host without regard to case, a
 * default port spelled out or not, a trailing slash (the route takes one) make no difference.
 * IdPs echo the ACS URL they were configured with, and people type those.
 */
export function isEndpoint(url: string, acsUrl: string): boolean {
  const key = (raw: string) => {
    const parsed = URL.parse(raw.trim());
    return parsed === null ? null : `${parsed.protocol}//${parsed.host}${parsed.pathname.replace(/\/+$/, '')}${parsed.search}`;
  };
  const given = key(url);
  return given !== null && given === key(acsUrl);
}
