import type { QueryBus } from '@nestjs/cqrs';
import { afterEach, describe, expect, it } from 'vitest';
import { GetEverEntitiesQuery, GetLiveEntitiesQuery } from '#warden/catalog';
import { FixedClock, randomIds } from '#warden/kernel';
import { loadConfig } from '#warden/platform';
import { AggregateStore } from '#warden/storage';
import { sqliteStores } from '../../../../../test/support/sqlite-stores.js';
import { appealStream } from '../../domain/appeal.streams.js';
import { SubmitAppealCommand } from './submit-appeal.command.js';
import { SubmitAppealHandler } from './submit-appeal.handler.js';

/** The catalog an appeal is checked against (docs/review.md, "Appeals"): real stores, the catalog's answers given. */
describe('submitting an appeal', () => {
  let stores: ReturnType<typeof sqliteStores> | undefined;
  afterEach(async () => {
    await stores?.close();
  });

  const post = { id: 'post', name: 'Post', kind: 'CONTENT', fields: [{ name: 'text', type: 'STRING', required: true }] };
  const user = { id: 'user', name: 'User', kind: 'USER', fields: [] };
  const spam = { id: 'spam', name: 'Spam' };
  /** `spam` is archived: the live catalog has no policy, every policy ever applied is still known. */
  const queries = {
    execute: async (query: unknown) => {
      if (query instanceof GetLiveEntitiesQuery) return query.kind === 'itemType' ? [post, user] : [];
      if (query instanceof GetEverEntitiesQuery) return query.kind === 'policy' ? [spam] : [];
      throw new Error(`unexpected query ${String(query)}`);
    },
  } as unknown as QueryBus;

  it('accepts a policy the organization archived since the action its callback named', async () => {
    stores = sqliteStores();
    const handler = new SubmitAppealHandler(
      new AggregateStore(stores.events, new FixedClock(new Date('2026-03-01T00:00:00Z')), randomIds),
      queries,
      loadConfig({}),
    );
    const body = {
      appealId: 'ap-1',
      appealedBy: { id: 'u1', typeId: 'user' },
      appealedAt: '2026-03-01T10:00:00Z',
      actionedItem: { id: 'p1', typeId: 'post', data: { text: 'hello' } },
      actionsTaken: ['remove'],
      violatingPolicies: [{ id: 'spam' }],
    };
    await handler.execute(new SubmitAppealCommand(body, { orgId: 'acme', correlationId: 'c', causationId: null, actor: 'api' }));
    const [submitted] = await stores.events.readStream(appealStream('acme', 'ap-1'));
    expect(submitted?.data).toMatchObject({ violatingPolicyIds: ['spam'] });
  });
});
