import { createPublicKey, verify } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';

/**
 * Checks a received callback's Service-Signature against the organization's JWKS, as
 * docs/callbacks.md tells a platform to: Ed25519 over `<t>.<delivery id>.<raw body>`.
 */
export async function isSignedByWarden(baseUrl: string, apiKey: string, headers: IncomingHttpHeaders, rawBody: string): Promise<boolean> {
  const jwks = (await (await fetch(`${baseUrl}/api/v1/signing_keys`, { headers: { 'x-api-key': apiKey } })).json()) as { keys: Array<{ kid: string }> };
  const parts = Object.fromEntries(
    String(headers['service-signature'])
      .split(',')
      .map((p) => p.split(/=(.*)/s) as [string, string]),
  );
  const jwk = jwks.keys.find((k) => k.kid === parts['kid']);
  if (!jwk || !parts['v1'] || !parts['t']) return false;
  const signed = Buffer.from(`${parts['t']}.${String(headers['service-delivery-id'])}.${rawBody}`);
  return verify(null, signed, createPublicKey({ key: jwk as never, format: 'jwk' }), Buffer.from(parts['v1'], 'base64'));
}
