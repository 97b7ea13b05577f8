import { Query } from '@nestjs/cqrs';
import type { SigningJwk } from '../../signing/signing-keys.js';

export type { SigningJwk };

/**
 * The organization's published signing keys as a JWKS (its first key is created on first need);
 * with `includeRetired`, its retired keys too. With `provenOnly`: every key, retired included, whose
 * private half this installation's keyring holds (none created): what a check of the log's own
 * signatures may trust (SigningKeys.provenJwks).
 */
export class GetSigningKeysQuery extends Query<{ keys: SigningJwk[] }> {
  constructor(
    readonly orgId: string,
    readonly includeRetired = false,
    readonly provenOnly = false,
  ) {
    super();
  }
}
