/**
 * User info in a configured URL (`https://alice:s3cret@hooks.example/cb`) sent the way HTTP
 * clients send it (RFC 7617): `Authorization: Basic base64(user:password)`, both parts
 * percent-decoded (UTF-8), to the URL without them. The outbound client refuses a URL carrying
 * credentials (a request line must not hold them), so a destination that allows user info sends it
 * this way (docs/callbacks.md, "Credentials in the URL"). Neither the raw URL nor what this
 * returns may be quoted in a message or a log line.
 */
export interface BasicCredentials {
  /** The URL without its user info. */
  readonly url: string;
  /** The `Authorization` header's value, `Basic …`. */
  readonly authorization: string;
}

/** Whether `raw` is a URL with a user name or password. */
export function hasUserInfo(raw: string): boolean {
  // User info is followed by '@': a URL without one has none, and is not parsed (every delivery asks).
  if (!raw.includes('@') || !URL.canParse(raw)) return false;
  const { username, password } = new URL(raw);
  return username !== '' || password !== '';
}

/**
 * The URL's user info as Basic credentials and the URL without it; null when it has none (or is
 * no URL: the client says so), 'invalid' when the user info does not percent-decode.
 */
export function basicCredentialsOf(raw: string): BasicCredentials | 'invalid' | null {
  if (!hasUserInfo(raw)) return null;
  const url = new URL(raw);
  const user = decoded(url.username);
  const password = decoded(url.password);
  if (user === null || password === null) return 'invalid';
  url.username = '';
  url.password = '';
  return { url: url.href, authorization: `Basic ${Buffer.from(`${user}:${password}`, 'utf8').toString('base64')}` };
}

/**
 * A destination's URL and its headers (names lower-cased) as they are sent: the URL's user info
 * moved into `Authorization: Basic …`. 'invalid': user info that does not percent-decode;
 * 'authorization-too': user info and an `Authorization` header both, which `apply` refuses (a
 * destination recorded before that check is refused where it is sent, not guessed at).
 */
export function withUserInfoAsBasic(
  url: string,
  headers: Readonly<Record<string, string>>,
): { url: string; headers: Record<string, string> } | 'invalid' | 'authorization-too' {
  const credentials = basicCredentialsOf(url);
  if (credentials === null) return { url, headers: { ...headers } };
  if (credentials === 'invalid') return 'invalid';
  if (headers['authorization'] !== undefined) return 'authorization-too';
  return { url: credentials.url, headers: { ...headers, authorization: credentials.authorization } };
}

/**
 * Why the URL's user info cannot be sent as Basic credentials, as `apply` says it (the URL never
 * quoted); null when it can, or when there is none.
 */
export function basicCredentialsProblem(raw: string): string | null {
  if (!hasUserInfo(raw)) return null;
  const { username, password } = new URL(raw);
  const user = decoded(username);
  if (user === null || decoded(password) === null)
    return 'has user info that is not valid percent-encoding (the user name and password are sent as Authorization: Basic, decoded)';
  if (user.includes(':')) return 'has a user name holding a colon (%3A), which Authorization: Basic cannot carry';
  return null;
}

function decoded(text: string): string | null {
  try {
    return decodeURIComponent(text);
  } catch {
    return null;
  }
}
