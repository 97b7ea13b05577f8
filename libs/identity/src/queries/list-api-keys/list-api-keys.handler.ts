import { Inject } from '@nestjs/common';
import { type IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { notFound } from '#warden/kernel';
import type { ReadStore } from '#warden/readstore';
import { ProjectionHost, READ_STORE } from '#warden/storage';
import { IDENTITY_PROJECTION } from '../../projections/identity.projection.js';
import { API_KEY_USAGE, API_KEYS, type ApiKeyDoc, ORGANIZATIONS } from '../../projections/identity.read-model.js';
import { type ApiKeySummary, ListApiKeysQuery } from './list-api-keys.query.js';

@QueryHandler(ListApiKeysQuery)
export class ListApiKeysHandler implements IQueryHandler<ListApiKeysQuery> {
  constructor(
    @Inject(READ_STORE) private readonly readStore: ReadStore,
    @Inject(ProjectionHost) private readonly projections: ProjectionHost,
  ) {}

  async execute(query: ListApiKeysQuery): Promise<ApiKeySummary[]> {
    await this.projections.catchUp(IDENTITY_PROJECTION);
    if (!(await this.readStore.get(ORGANIZATIONS, query.orgId))) throw notFound(`No organization ${query.orgId}`);
    const keys = await this.readStore.find<ApiKeyDoc>(
      API_KEYS,
      { orgId: query.orgId },
      {
        sort: [{ field: 'createdAt', direction: 'asc' }],
      },
    );
    return Promise.all(
      keys.map(async (k) => ({
        id: k.id,
        name: k.name,
        team: k.team,
        prefix: k.prefix,
        status: k.status,
        createdAt: k.createdAt,
        deactivatedAt: k.deactivatedAt,
        replacedBy: k.replacedBy,
        lastUsedAt: (await this.readStore.get<{ lastUsedAt: string }>(API_KEY_USAGE, k.id))?.lastUsedAt ?? null,
      })),
    );
  }
}
