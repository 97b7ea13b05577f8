import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject, sign, verify } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { type Clock, type CommandContext, randomIds } from '#warden/kernel';
import { CLOCK } from '#warden/platform';
import { AggregateStore, KEYRING, type Keyring } from '#warden/storage';
import { signingKeyStream } from '../domain/callbacks.streams.js';
import {
  activeKey,
  everyKey,
  type NewSigningKey,
  publishedKeys,
  type SigningKeyRecord,
  type SigningKeyStatus,
  signingKeysDecider,
  type SigningKeysState,
} from '../domain/signing-key.decider.js';

/** A public key as a JWK (RFC 8037), with where it stands (an extra member, ignored by JWK libraries). */
export interface SigningJwk {
  kty: 'OKP';
  crv: 'Ed25519';
  kid: string;
  x: string;
  status: SigningKeyStatus;
}

export interface Signer {
  readonly kid: string;
  sign(payload: Buffer): Buffer;
}

/** How long a process signs with the key it loaded before looking for a rotation by another process. */
const ACTIVE_KEY_TTL_MS = 1000;

/**
 * Each organization's Ed25519 signing keys: created on first need, rotated and retired by the
 * operator, private halves sealed under the keyring in the log.
 */
@Injectable()
export class SigningKeys {
  private readonly active = new Map<string, { signer: Signer; loadedAt: number }>();
  private readonly loading = new Map<string, Promise<Signer>>();
  private readonly privateKeys = new Map<string, KeyObject>();

  constructor(
    private readonly aggregates: AggregateStore,
    @Inject(KEYRING) private readonly keyring: Keyring,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  /** The key that signs the organization's callbacks now (creating the first one). */
  async signer(orgId: string): Promise<Signer> {
    const cached = this.active.get(orgId);
    if (cached && Date.now() - cached.loadedAt < ACTIVE_KEY_TTL_MS) return cached.signer;
    let pending = this.loading.get(orgId);
    if (!pending) {
      pending = this.loadSigner(orgId).finally(() => this.loading.delete(orgId));
      this.loading.set(orgId, pending);
    }
    return pending;
  }

  /**
   * The JWKS receivers verify with: the active key first, then rotated keys not yet retired. With
   * `retired`, every key ever created follows (an auditor checking checkpoints signed before a
   * retirement); a receiver of callbacks must not accept a retired key's signature.
   */
  async jwks(orgId: string, options: { retired?: boolean } = {}): Promise<{ keys: SigningJwk[] }> {
    const state = await this.ensured(orgId);
    return { keys: (options.retired ? everyKey(state) : publishedKeys(state)).map((k) => toJwk(k)) };
  }

  /**
   * Every key the log holds for the organization (retired included, none created) whose sealed
   * private half this keyring opens and which signs for its public half: the keys an operator's
   * Warden made. Whoever can write the log but not the keyring can add a key of their own and sign
   * with it; it is left out here, so what it signed does not verify (a replay's check,
   * docs/audit.md, "Replay").
   */
  async provenJwks(orgId: string): Promise<{ keys: SigningJwk[] }> {
    const state = await this.aggregates.state(signingKeyStream(orgId), signingKeysDecider);
    return {
      keys: everyKey(state)
        .filter((key) => this.proven(key))
        .map(toJwk),
    };
  }

  private proven(key: SigningKeyRecord): boolean {
    try {
      const probe = Buffer.from(`warden signing key ${key.kid}`);
      const signature = sign(null, probe, this.privateKey(key));
      return verify(null, probe, createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: key.x }, format: 'jwk' }), signature);
    } catch {
      // Not sealed under this keyring (or not a key at all).
      return false;
    }
  }

  async list(orgId: string): Promise<SigningKeyRecord[]> {
    return (await this.aggregates.state(signingKeyStream(orgId), signingKeysDecider)).keys;
  }

  async rotate(orgId: string, context: CommandContext): Promise<{ kid: string; replaced: string | null }> {
    const { events } = await this.aggregates.handle(signingKeyStream(orgId), signingKeysDecider, { type: 'RotateSigningKey', key: this.newKey() }, context);
    this.active.delete(orgId);
    const created = events.find((e) => e.type === 'SigningKeyCreated')!;
    return { kid: created.data.kid, replaced: created.data.replaces };
  }

  async retire(orgId: string, kid: string, context: CommandContext): Promise<boolean> {
    const { events } = await this.aggregates.handle(
      signingKeyStream(orgId),
      signingKeysDecider,
      { type: 'RetireSigningKey', kid, at: this.clock.now().toISOString() },
      context,
    );
    return events.length > 0;
  }

  private async loadSigner(orgId: string): Promise<Signer> {
    const key = activeKey(await this.ensured(orgId))!;
    const signer: Signer = { kid: key.kid, sign: (payload) => sign(null, payload, this.privateKey(key)) };
    this.active.set(orgId, { signer, loadedAt: Date.now() });
    return signer;
  }

  private async ensured(orgId: string): Promise<SigningKeysState> {
    const stream = signingKeyStream(orgId);
    const state = await this.aggregates.state(stream, signingKeysDecider);
    if (activeKey(state)) return state;
    const context: CommandContext = { orgId, correlationId: randomIds.uuid(), actor: 'callbacks' };
    await this.aggregates.handle(stream, signingKeysDecider, { type: 'EnsureSigningKey', key: this.newKey() }, context);
    return this.aggregates.state(stream, signingKeysDecider);
  }

  private newKey(): NewSigningKey {
    const jwk = generateKeyPairSync('ed25519').privateKey.export({ format: 'jwk' });
    const x = jwk.x!;
    return {
      kid: thumbprint(x),
      algorithm: 'Ed25519',
      x,
      d: this.keyring.seal(jwk.d!),
      createdAt: this.clock.now().toISOString(),
    };
  }

  private privateKey(key: SigningKeyRecord): KeyObject {
    let object = this.privateKeys.get(key.kid);
    if (!object) {
      const d = this.keyring.open(key.d);
      object = createPrivateKey({ key: { kty: 'OKP', crv: 'Ed25519', x: key.x, d }, format: 'jwk' });
      this.privateKeys.set(key.kid, object);
    }
    return object;
  }
}

const toJwk = (k: SigningKeyRecord): SigningJwk => ({ kty: 'OKP', crv: 'Ed25519', kid: k.kid, x: k.x, status: k.status });

/** RFC 7638 JWK thumbprint: the key id is derived from the public key itself. */
export function thumbprint(x: string): string {
  return createHash('sha256')
    .update(JSON.stringify({ crv: 'Ed25519', kty: 'OKP', x }))
    .digest('base64url');
}
