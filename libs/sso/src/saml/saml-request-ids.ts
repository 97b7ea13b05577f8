import { createHash, timingSafeEqual } from 'node:crypto';
import type { CacheItem, CacheProvider } from '@node-saml/node-saml';
import type { Clock } from '#warden/kernel';
import { type Keyring, type SealedSecret } from '#warden/storage';

/** How long after the AuthnRequest its response is still accepted (time to sign in at the IdP, with MFA). */
export const SAML_REQUEST_TTL_MS = 15 * 60_000;

/**
 * The AuthnRequest ids this service issues carry their own proof: the organization and the issue
 * time sealed under the keyring (AES-256-GCM, so a forged or altered id does not open). Every
 * process holds the keyring, so any of them can check an `InResponseTo`, and an anonymous
 * `GET /saml/login` writes nothing anywhere. A response is used once all the same: its
 * assertion id is recorded on the write side (samlAssertionDecider).
 *
 * node-saml asks a CacheProvider whether an id is one of ours; this is that provider, for one
 * organization: `saveAsync` has nothing to store, `getAsync` opens the id and answers its issue
 * time while it is fresh.
 */
export class SealedRequestIds implements CacheProvider {
  /** The id this instance issued last (the login route binds the browser to it). */
  lastIssued: string | null = null;

  constructor(
    private readonly orgId: string,
    private readonly keyring: Keyring,
    private readonly clock: Clock,
  ) {}

  /** A new request id for this organization: an xsd:ID (starts with `_`, then base64url and dots). */
  newId(): string {
    const sealed = this.keyring.seal(JSON.stringify({ o: this.orgId, t: this.clock.now().getTime() }));
    this.lastIssued = ['_' + sealed.kid, sealed.iv, sealed.ct, sealed.tag].map((part, i) => (i === 0 ? part : b64url(part))).join('.');
    return this.lastIssued;
  }

  async saveAsync(_key: string, value: string): Promise<CacheItem | null> {
    return { value, createdAt: this.clock.now().getTime() };
  }

  async getAsync(key: string): Promise<string | null> {
    const issuedAt = this.issuedAt(key);
    if (issuedAt === null) return null;
    const age = this.clock.now().getTime() - issuedAt;
    return age >= 0 && age < SAML_REQUEST_TTL_MS ? new Date(issuedAt).toISOString() : null;
  }

  async removeAsync(key: string | null): Promise<string | null> {
    return key;
  }

  /** The issue time of one of this organization's ids; null for anything else. */
  private issuedAt(id: string): number | null {
    const parts = id.split('.');
    if (parts.length !== 4 || !parts[0]!.startsWith('_')) return null;
    const sealed: SealedSecret = { kid: parts[0]!.slice(1), iv: fromB64url(parts[1]!), ct: fromB64url(parts[2]!), tag: fromB64url(parts[3]!) };
    try {
      const { o, t } = JSON.parse(this.keyring.open(sealed)) as { o?: unknown; t?: unknown };
      return o === this.orgId && typeof t === 'number' ? t : null;
    } catch {
      return null;
    }
  }
}

/**
 * What the browser that started a sign-in keeps (in a cookie) to show the ACS that the response
 * answers its own request: a SHA-256 digest of the request id. The id is sealed, so its digest
 * can be made only by whoever saw the id; another browser cannot make it for a request it never
 * started, and the digest gives the id away to no one who reads the cookie.
 */
export function requestBindingOf(requestId: string): string {
  return createHash('sha256').update(requestId).digest('base64url');
}

/** Whether a browser's binding is the one of the request a response answers (constant-time). */
export function isBoundTo(binding: string | null, requestId: string): boolean {
  if (binding === null) return false;
  const expected = Buffer.from(requestBindingOf(requestId));
  const given = Buffer.from(binding);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

const b64url = (base64: string) => Buffer.from(base64, 'base64').toString('base64url');
const fromB64url = (text: string) => Buffer.from(text, 'base64url').toString('base64');
