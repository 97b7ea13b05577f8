import { Query } from '@nestjs/cqrs';
import type { SigningJwk } from '../../signing/signing-keys.js';

export type { SigningJwk };

/**
 * The organization's published signing keys as a JWKS (its first key is created on first need);
 * with `includeRetired`, its retired keys too.
 */
export class GetSigningKeysQuery extends Query<{ keys: SigningJwk[] }> {
  constructor(
    readonly orgId: string,
    readonly includeRetired = false,
  ) {
    super();
  }
}
