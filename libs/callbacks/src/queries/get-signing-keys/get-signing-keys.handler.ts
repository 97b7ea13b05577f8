import { type IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { SigningKeys, type SigningJwk } from '../../signing/signing-keys.js';
import { GetSigningKeysQuery } from './get-signing-keys.query.js';

@QueryHandler(GetSigningKeysQuery)
export class GetSigningKeysHandler implements IQueryHandler<GetSigningKeysQuery> {
  constructor(private readonly keys: SigningKeys) {}

  async execute(query: GetSigningKeysQuery): Promise<{ keys: SigningJwk[] }> {
    if (query.provenOnly) return this.keys.provenJwks(query.orgId);
    return this.keys.jwks(query.orgId, { retired: query.includeRetired });
  }
}
