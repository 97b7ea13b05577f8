import { createPublicKey, verify } from 'node:crypto';

/**
 * Verifies Warden's signed callbacks (docs/callbacks.md, "Verifying a callback"), with nothing
 * but `node:crypto`. Returns `verifyCallback(headers, rawBody)`: `headers` are the request's
 * headers (lower-case names), `rawBody` the body bytes exactly as received.
 */
export function callbackVerifier({ wardenUrl, apiKey, minRefreshIntervalMs = 10_000, maxKeySetAgeMs = 3_600_000, maxStaleMs = 86_400_000 }) {
  let keys = new Map(); // kid -> public key
  let lastRefresh = -Infinity;
  let lastFetched = -Infinity; // when the keys in hand were fetched
  let refreshing; // the refresh under way, shared by the callbacks that wait for it

  async function fetchKeys() {
    const res = await fetch(`${wardenUrl}/api/v1/signing_keys`, { headers: { 'X-API-KEY': apiKey }, signal: AbortSignal.timeout(5_000) });
    if (!res.ok) throw new Error(`GET /api/v1/signing_keys answered ${res.status}`);
    const { keys: jwks } = await res.json();
    return new Map(jwks.map((jwk) => [jwk.kid, createPublicKey({ key: jwk, format: 'jwk' })]));
  }

  // Anyone can send you a callback with a made-up kid, and each unknown kid asks Warden for the
  // key set under your organization's API key, whose requests Warden limits. So ask at most once
  // per interval, one request at a time, and keep the keys you have when the request fails: a
  // forger then spends nothing of yours, and a genuine callback refused meanwhile is retried.
  async function refreshKeys() {
    if (!refreshing && Date.now() - lastRefresh >= minRefreshIntervalMs) {
      lastRefresh = Date.now();
      refreshing = fetchKeys()
        // A new map, not additions to the old one: a key retired since must stop verifying.
        .then((fresh) => {
          keys = fresh;
          lastFetched = Date.now();
        })
        .catch((err) => console.error(`Warden's signing keys not refreshed: ${err.message}`))
        .finally(() => void (refreshing = undefined));
    }
    await refreshing;
  }

  return async function verifyCallback(headers, rawBody) {
    const { t, kid, v1 } = Object.fromEntries(
      String(headers['service-signature'])
        .split(',')
        .map((p) => p.split(/=(.*)/s)),
    );
    if (!(Math.abs(Date.now() / 1000 - Number(t)) <= 300)) return false; // older than five minutes (or from the future)
    // A key you have not seen yet (Warden rotated), or a key set an hour old (a key retired since
    // must drop out of it).
    if (!keys.has(kid) || Date.now() - lastFetched >= maxKeySetAgeMs) await refreshKeys();
    // Keys that could not be fetched again for a day are not trusted: one Warden retired since (a
    // compromised one, say) would verify for as long as the lookups fail.
    if (!keys.has(kid) || !v1 || Date.now() - lastFetched > maxStaleMs) return false;
    const signed = Buffer.concat([Buffer.from(`${t}.${headers['service-delivery-id']}.`), Buffer.from(rawBody)]);
    return verify(null, signed, keys.get(kid), Buffer.from(v1, 'base64'));
  };
}
