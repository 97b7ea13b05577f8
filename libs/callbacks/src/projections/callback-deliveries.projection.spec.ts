import { afterEach, describe, expect, it } from 'vitest';
import { anEvent } from '../../../../test/support/events.js';
import { sqliteStores } from '../../../../test/support/sqlite-stores.js';
import { ProjectionRunner, rebuildReadModels } from '#warden/eventstore';
import type { JsonObject } from '#warden/kernel';
import { deliveryStream } from '../domain/callbacks.streams.js';
import { callbackDeliveriesProjection } from './callback-deliveries.projection.js';
import { CALLBACK_DELIVERIES, CALLBACK_SCHEDULE, deliveryDocId } from './callback-deliveries.read-model.js';

const requested = (deliveryId: string, url = 'https://platform.example/hooks?token=secret') =>
  anEvent('CallbackDeliveryRequested', {
    deliveryId,
    kind: 'action',
    trigger: 'rule',
    actionId: 'remove',
    appealId: null,
    item: { id: 'p1', typeId: 'post' },
    destination: { url, headers: {} },
    body: { item: { id: 'p1' } },
    subject: null,
    requestedAt: '2026-01-01T00:00:00.000Z',
    nextAttemptAt: '2026-01-01T00:00:00.000Z',
  });

const failed = (deliveryId: string, attempt: number, nextAttemptAt: string | null) =>
  anEvent('CallbackAttemptFailed', {
    deliveryId,
    cycle: 1,
    attempt,
    status: 500,
    error: 'The receiver answered 500',
    durationMs: 2,
    retryAfterMs: null,
    attemptedAt: '2026-01-01T00:00:01.000Z',
    nextAttemptAt,
  } as JsonObject);

describe('callback deliveries projection', () => {
  let stores: ReturnType<typeof sqliteStores>;
  afterEach(async () => {
    await stores?.close();
  });

  async function seed() {
    const { events } = stores;
    await events.append(deliveryStream('acme', 'd1'), [requested('d1')], 'no_stream');
    await events.append(deliveryStream('acme', 'd1'), [failed('d1', 1, '2026-01-01T00:00:10.000Z')], 0);
    await events.append(deliveryStream('acme', 'd2'), [requested('d2')], 'no_stream');
    await events.append(
      deliveryStream('acme', 'd2'),
      [anEvent('CallbackDelivered', { deliveryId: 'd2', cycle: 1, attempt: 1, status: 200, durationMs: 3, deliveredAt: '2026-01-01T00:00:01.000Z' })],
      0,
    );
    await events.append(deliveryStream('acme', 'd3'), [requested('d3'), failed('d3', 1, null)], 'no_stream');
    await events.append(
      deliveryStream('acme', 'd3'),
      [
        anEvent('CallbackDeadLettered', {
          deliveryId: 'd3',
          cycle: 1,
          attempts: 1,
          reason: 'All 1 attempts failed',
          deadLetteredAt: '2026-01-01T00:00:01.000Z',
        }),
      ],
      1,
    );
  }

  const dump = async () => JSON.stringify(await Promise.all([CALLBACK_DELIVERIES, CALLBACK_SCHEDULE].map((c) => stores.readStore.find(c))));

  it('tracks each delivery by status and keeps only the due ones in the schedule', async () => {
    stores = sqliteStores();
    await seed();
    await new ProjectionRunner(callbackDeliveriesProjection, stores.events, stores.readStore).catchUp();
    expect(await stores.readStore.get(CALLBACK_DELIVERIES, deliveryDocId('acme', 'd1'))).toMatchObject({
      status: 'failed',
      attempts: 1,
      totalAttempts: 1,
      nextAttemptAt: '2026-01-01T00:00:10.000Z',
      lastStatus: 500,
      destination: 'https://platform.example/hooks',
    });
    expect(await stores.readStore.get(CALLBACK_DELIVERIES, deliveryDocId('acme', 'd2'))).toMatchObject({ status: 'delivered', lastStatus: 200 });
    expect(await stores.readStore.get(CALLBACK_DELIVERIES, deliveryDocId('acme', 'd3'))).toMatchObject({
      status: 'dead',
      lastError: 'The receiver answered 500',
    });
    expect(await stores.readStore.find(CALLBACK_SCHEDULE)).toEqual([
      { orgId: 'acme', deliveryId: 'd1', nextAttemptAt: '2026-01-01T00:00:10.000Z', revision: 1 },
    ]);
  });

  it('never shows a query string, which may hold a token', async () => {
    stores = sqliteStores();
    await seed();
    await new ProjectionRunner(callbackDeliveriesProjection, stores.events, stores.readStore).catchUp();
    expect(await dump()).not.toContain('secret');
  });

  it('leaves the read model identical when the whole log is replayed twice', async () => {
    stores = sqliteStores();
    await seed();
    await new ProjectionRunner(callbackDeliveriesProjection, stores.events, stores.readStore).catchUp();
    const live = await dump();
    await rebuildReadModels([callbackDeliveriesProjection], stores.events, stores.readStore);
    const once = await dump();
    await rebuildReadModels([callbackDeliveriesProjection], stores.events, stores.readStore);
    expect(once).toBe(live);
    expect(await dump()).toBe(once);
  });
});
