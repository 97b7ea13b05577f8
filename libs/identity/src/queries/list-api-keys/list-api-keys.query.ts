import { Query } from '@nestjs/cqrs';

export interface ApiKeySummary {
  readonly id: string;
  readonly name: string | null;
  readonly team: string | null;
  readonly prefix: string;
  readonly status: 'active' | 'rotated' | 'revoked';
  readonly createdAt: string;
  readonly deactivatedAt: string | null;
  readonly replacedBy: string | null;
  readonly lastUsedAt: string | null;
}

export class ListApiKeysQuery extends Query<ApiKeySummary[]> {
  constructor(readonly orgId: string) {
    super();
  }
}
