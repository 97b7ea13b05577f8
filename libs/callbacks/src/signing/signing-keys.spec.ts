import { createPublicKey, randomBytes, verify } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { sqliteStores } from '../../../../test/support/sqlite-stores.js';
import { FixedClock, randomIds } from '#warden/kernel';
import { AggregateStore, Keyring } from '#warden/storage';
import { formatSignatureHeader, parseSignatureHeader, signedPayload } from '../domain/callback-signature.js';
import { signingKeyStream } from '../domain/callbacks.streams.js';
import { RETIRE_AFTER_ROTATION_MS } from '../domain/signing-key.decider.js';
import { SigningKeys, type SigningJwk, thumbprint } from './signing-keys.js';

const context = { orgId: 'acme', correlationId: 'c', actor: 'test' };

/** What a receiver does, with node:crypto only: find the key by kid, verify the signed bytes. */
function receiverVerifies(jwks: { keys: SigningJwk[] }, header: string, deliveryId: string, rawBody: string): boolean {
  const sig = parseSignatureHeader(header);
  const jwk = jwks.keys.find((k) => k.kid === sig?.kid);
  if (!sig || !jwk) return false;
  const key = createPublicKey({ key: { kty: jwk.kty, crv: jwk.crv, x: jwk.x }, format: 'jwk' });
  return verify(null, Buffer.from(`${sig.t}.${deliveryId}.${rawBody}`), key, Buffer.from(sig.v1, 'base64'));
}

describe('signing keys', () => {
  let stores: ReturnType<typeof sqliteStores>;
  afterEach(async () => {
    await stores?.close();
  });

  const setup = (keyring = new Keyring([randomBytes(32)])) => {
    stores = sqliteStores();
    const clock = new FixedClock(new Date());
    const aggregates = new AggregateStore(stores.events, clock, randomIds);
    return { keys: new SigningKeys(aggregates, keyring, clock), aggregates, clock };
  };

  const sign = async (keys: SigningKeys, deliveryId: string, body: string) => {
    const signer = await keys.signer('acme');
    const t = Math.floor(Date.now() / 1000);
    return formatSignatureHeader(t, signer.kid, signer.sign(signedPayload(t, deliveryId, body)));
  };

  it('creates a key on first need and signs so that the JWKS x verifies it; a tampered body does not', async () => {
    const { keys } = setup();
    const body = JSON.stringify({ item: { id: 'p1' }, custom: { text: 'ünïcode' } });
    const header = await sign(keys, 'd-1', body);
    const jwks = await keys.jwks('acme');
    expect(jwks.keys).toHaveLength(1);
    expect(jwks.keys[0]).toMatchObject({ kty: 'OKP', crv: 'Ed25519', kid: parseSignatureHeader(header)!.kid });
    expect(jwks.keys[0]!.kid).toBe(thumbprint(jwks.keys[0]!.x));
    expect(Buffer.from(jwks.keys[0]!.x, 'base64url')).toHaveLength(32);

    expect(receiverVerifies(jwks, header, 'd-1', body)).toBe(true);
    expect(receiverVerifies(jwks, header, 'd-1', body.replace('p1', 'p2'))).toBe(false);
    expect(receiverVerifies(jwks, header, 'd-2', body)).toBe(false);
    const older = header.replace(/t=(\d+)/, (_m, t: string) => `t=${Number(t) - 600}`);
    expect(receiverVerifies(jwks, older, 'd-1', body)).toBe(false);
  });

  it('keeps one key per organization and never stores the private key in plaintext', async () => {
    const { keys } = setup();
    await Promise.all([keys.jwks('acme'), keys.jwks('acme'), keys.signer('acme')]);
    const events = await stores.events.readStream(signingKeyStream('acme'));
    expect(events.map((e) => e.type)).toEqual(['SigningKeyCreated']);
    expect(JSON.stringify(events[0]!.data['d'])).toMatch(/"ct"/);
    expect((await keys.jwks('globex')).keys[0]!.kid).not.toBe((await keys.jwks('acme')).keys[0]!.kid);
  });

  it('rotates: new signatures use the new key, the old key verifies until it is retired', async () => {
    const { keys, clock } = setup();
    const before = await sign(keys, 'd-1', '{}');
    const rotated = await keys.rotate('acme', context);
    expect(rotated.replaced).toBe(parseSignatureHeader(before)!.kid);
    const after = await sign(keys, 'd-2', '{}');
    expect(parseSignatureHeader(after)!.kid).toBe(rotated.kid);

    const both = await keys.jwks('acme');
    expect(both.keys.map((k) => [k.kid, k.status])).toEqual([
      [rotated.kid, 'active'],
      [rotated.replaced, 'rotated'],
    ]);
    expect(receiverVerifies(both, before, 'd-1', '{}')).toBe(true);
    expect(receiverVerifies(both, after, 'd-2', '{}')).toBe(true);

    await expect(keys.retire('acme', rotated.replaced!, context)).rejects.toThrow(/rotated out moments ago/);
    clock.advance(RETIRE_AFTER_ROTATION_MS);
    expect(await keys.retire('acme', rotated.replaced!, context)).toBe(true);
    const one = await keys.jwks('acme');
    expect(one.keys.map((k) => k.kid)).toEqual([rotated.kid]);
    expect(receiverVerifies(one, before, 'd-1', '{}')).toBe(false);
    await expect(keys.retire('acme', rotated.kid, context)).rejects.toThrow(/rotate first/);

    // An auditor asks for every key: the retired one comes back, marked, and verifies what it signed.
    const all = await keys.jwks('acme', { retired: true });
    expect(all.keys.map((k) => [k.kid, k.status])).toEqual([
      [rotated.kid, 'active'],
      [rotated.replaced, 'retired'],
    ]);
    expect(receiverVerifies(all, before, 'd-1', '{}')).toBe(true);
  });

  it('fails to sign when the keyring cannot open the private key (so nothing is sent)', async () => {
    const { keys, aggregates } = setup();
    await keys.jwks('acme');
    const other = new SigningKeys(aggregates, new Keyring([randomBytes(32)]), new FixedClock(new Date()));
    await expect(sign(other, 'd-1', '{}')).rejects.toThrow();
  });
});
