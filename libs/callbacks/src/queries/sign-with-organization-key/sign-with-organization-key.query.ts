import { Query } from '@nestjs/cqrs';

export interface OrganizationSignature {
  /** The key that signed: its public half is in the organization's JWKS. */
  readonly kid: string;
  /** Ed25519 signature, base64url. */
  readonly signature: string;
}

/**
 * Signs bytes with the organization's current Ed25519 key, the one that signs its callbacks, so
 * one published JWKS verifies both (the audit chain's checkpoints use it).
 */
export class SignWithOrganizationKeyQuery extends Query<OrganizationSignature> {
  constructor(
    readonly orgId: string,
    readonly payload: Buffer,
  ) {
    super();
  }
}
