import { redactUrl } from '#warden/kernel';
import { isSealedSecret, type Keyring, type SealedSecret } from './keyring.js';

/**
 * A configured URL as events and read models keep it: `url` is what may be shown (no user info,
 * query string or fragment: redactUrl), `sealedUrl` the whole URL under the keyring. Webhook URLs
 * often carry their token in the query string (`?token=…`), so the whole URL is sealed like a
 * header value, whatever it holds.
 */
export interface StoredUrl {
  readonly url: string;
  readonly sealedUrl: SealedSecret;
}

export function sealUrl(url: string, keyring: Keyring): StoredUrl {
  return { url: redactUrl(url), sealedUrl: keyring.seal(url) };
}

/**
 * The whole URL to call. Reads both shapes: `sealedUrl` (this release on), or a plaintext `url`
 * alone, as a read model built by an earlier release may still hold it.
 */
export function openUrl(stored: { readonly url: string; readonly sealedUrl?: unknown }, keyring: Keyring): string {
  return isSealedSecret(stored.sealedUrl) ? keyring.open(stored.sealedUrl) : stored.url;
}

/** `stored` with its URL sealed, the same object when it already is. */
export function withSealedUrl<T extends { readonly url: string; readonly sealedUrl?: unknown }>(stored: T, keyring: Keyring): T & StoredUrl {
  return isSealedSecret(stored.sealedUrl) ? (stored as T & StoredUrl) : { ...stored, ...sealUrl(stored.url, keyring) };
}
