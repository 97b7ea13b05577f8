/**
 * The callback signature (docs/callbacks.md, "Verifying a callback"): Ed25519 over the bytes
 * `<t>.<deliveryId>.<raw body>`, sent as `Service-Signature: t=<unix seconds>,kid=<key id>,v1=<base64>`
 * next to `Service-Delivery-Id`. The delivery id inside the signed bytes binds the signature to
 * that header; the timestamp lets receivers refuse replays older than their freshness window.
 */
export const SIGNATURE_HEADER = 'Service-Signature';
export const DELIVERY_ID_HEADER = 'Service-Delivery-Id';
/** What docs/callbacks.md tells receivers to accept. */
export const FRESHNESS_WINDOW_SECONDS = 300;

export function signedPayload(t: number, deliveryId: string, rawBody: string | Buffer): Buffer {
  return Buffer.concat([Buffer.from(`${t}.${deliveryId}.`, 'utf8'), typeof rawBody === 'string' ? Buffer.from(rawBody, 'utf8') : rawBody]);
}

export function formatSignatureHeader(t: number, kid: string, signature: Buffer): string {
  return `t=${t},kid=${kid},v1=${signature.toString('base64')}`;
}

export interface ParsedSignature {
  t: number;
  kid: string;
  v1: string;
}

export function parseSignatureHeader(value: string): ParsedSignature | undefined {
  const parts = new Map(
    value.split(',').map((p) => {
      const i = p.indexOf('=');
      return [p.slice(0, i).trim(), p.slice(i + 1).trim()] as const;
    }),
  );
  const t = Number(parts.get('t'));
  const kid = parts.get('kid');
  const v1 = parts.get('v1');
  if (!Number.isInteger(t) || !kid || !v1) return undefined;
  return { t, kid, v1 };
}
