import type { DomainEvent } from '#warden/kernel';
import type { SealedValue } from './callback-delivery.events.js';

/** A new Ed25519 key pair; it signs from now on, the one it replaces keeps verifying until retired. */
export type SigningKeyCreated = DomainEvent<
  'SigningKeyCreated',
  {
    kid: string;
    algorithm: 'Ed25519';
    /** Public key, base64url (the JWK `x`). */
    x: string;
    /** Private key (the JWK `d`), sealed under the keyring. */
    d: SealedValue;
    replaces: string | null;
    createdAt: string;
  }
>;

/** The key is no longer published: signatures made with it stop verifying. */
export type SigningKeyRetired = DomainEvent<'SigningKeyRetired', { kid: string; retiredAt: string }>;

export type SigningKeyEvent = SigningKeyCreated | SigningKeyRetired;
