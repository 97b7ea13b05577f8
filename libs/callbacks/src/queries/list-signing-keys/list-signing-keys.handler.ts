import { type IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { SigningKeys } from '../../signing/signing-keys.js';
import { ListSigningKeysQuery, type SigningKeySummary } from './list-signing-keys.query.js';

@QueryHandler(ListSigningKeysQuery)
export class ListSigningKeysHandler implements IQueryHandler<ListSigningKeysQuery> {
  constructor(private readonly keys: SigningKeys) {}

  async execute(query: ListSigningKeysQuery): Promise<SigningKeySummary[]> {
    return (await this.keys.list(query.orgId)).map((k) => ({ kid: k.kid, status: k.status, createdAt: k.createdAt }));
  }
}
