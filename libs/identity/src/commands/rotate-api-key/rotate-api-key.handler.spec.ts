import type { CommandBus } from '@nestjs/cqrs';
import { afterEach, describe, expect, it } from 'vitest';
import { anEvent } from '../../../../../test/support/events.js';
import { sqliteStores } from '../../../../../test/support/sqlite-stores.js';
import { FixedClock, randomIds } from '#warden/kernel';
import { AggregateStore } from '#warden/storage';
import { apiKeyDecider } from '../../domain/api-key.decider.js';
import { apiKeyStream, organizationStream } from '../../domain/identity.streams.js';
import { CreateApiKeyCommand } from '../create-api-key/create-api-key.command.js';
import { CreateApiKeyHandler } from '../create-api-key/create-api-key.handler.js';
import { RotateApiKeyCommand } from './rotate-api-key.command.js';
import { RotateApiKeyHandler } from './rotate-api-key.handler.js';

const context = { orgId: 'acme', correlationId: 'c', actor: 'user:admin' };

describe('rotating an API key', () => {
  let stores: ReturnType<typeof sqliteStores> | undefined;
  afterEach(async () => {
    await stores?.close();
    stores = undefined;
  });

  it('leaves exactly one active key when two rotations of it run at once: the losing one revokes the key it made', async () => {
    stores = sqliteStores();
    const aggregates = new AggregateStore(stores.events, new FixedClock(new Date('2026-12-01T00:00:00Z')), randomIds);
    await stores.events.append(organizationStream('acme'), [anEvent('OrganizationCreated', { orgId: 'acme', name: 'Acme' })], 'no_stream');
    const create = new CreateApiKeyHandler(aggregates);
    // The command bus's one route here, to the real handler.
    const commands = { execute: (c: CreateApiKeyCommand) => create.execute(c) } as unknown as CommandBus;
    const original = await create.execute(new CreateApiKeyCommand('acme', 'ci', null, context));
    const rotate = new RotateApiKeyHandler(aggregates, commands);

    const outcomes = await Promise.allSettled([
      rotate.execute(new RotateApiKeyCommand('acme', original.keyId, context)),
      rotate.execute(new RotateApiKeyCommand('acme', original.keyId, context)),
    ]);
    expect(outcomes.map((o) => o.status).sort()).toEqual(['fulfilled', 'rejected']);
    const winner = (outcomes.find((o) => o.status === 'fulfilled') as PromiseFulfilledResult<{ keyId: string }>).value;

    const keyStreams = (await stores.events.readAll()).filter((e) => e.streamName.startsWith('api_key-')).map((e) => e.streamName);
    const states = await Promise.all([...new Set(keyStreams)].map(async (s) => [s, (await aggregates.load(s, apiKeyDecider)).state.status] as const));
    expect(states.filter(([, status]) => status === 'active').map(([s]) => s)).toEqual([apiKeyStream('acme', winner.keyId)]);
    expect(states).toHaveLength(3);
  });
});
