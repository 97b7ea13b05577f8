import { afterEach, describe, expect, it } from 'vitest';
import { anEvent } from '../../../../test/support/events.js';
import { sqliteStores } from '../../../../test/support/sqlite-stores.js';
import { waitFor } from '../../../../test/support/wait-for.js';
import { type RecordedEvent, UpcasterRegistry } from '#warden/kernel';
import type { GroupSubscribeOptions } from '../event-store.port.js';
import { UpcastingEventStore } from './upcasting-event-store.js';

/** v1 of `PriceSet` held cents as a string; v2 holds a number. */
function registry(): UpcasterRegistry {
  const r = new UpcasterRegistry();
  r.register({ eventType: 'PriceSet', fromVersion: 1, upcast: ({ cents, ...rest }) => ({ ...rest, cents: Number(cents) }) });
  return r;
}

describe('UpcastingEventStore', () => {
  let stores: ReturnType<typeof sqliteStores>;
  afterEach(async () => {
    await stores?.close();
  });

  it('hands every read path the current shape of an event written at an older version', async () => {
    stores = sqliteStores();
    // Written by an older release, straight to the log.
    await stores.events.append('price-1', [anEvent('PriceSet', { cents: '250' }), anEvent('Noted', { n: 1 })], 'no_stream');
    const events = new UpcastingEventStore(stores.events, registry());
    const current = { cents: 250 };

    const [fromStream] = await events.readStream('price-1');
    expect(fromStream!.data).toEqual(current);
    expect(fromStream!.metadata.schemaVersion).toBe(2);
    expect((await events.readAll({ eventTypes: ['PriceSet'] }))[0]!.data).toEqual(current);

    const seen: RecordedEvent[] = [];
    const sub = events.subscribeToAll({ onEvents: async (batch) => void seen.push(...batch) });
    await waitFor(() => seen.length === 2, 'both events delivered');
    await sub.stop();
    expect(seen[0]!.data).toEqual(current);
    expect(seen[1]!.data).toEqual({ n: 1 });
  });

  it('stamps appends with the current version of each type, so they are never upcast again', async () => {
    stores = sqliteStores();
    const events = new UpcastingEventStore(stores.events, registry());
    await events.append('price-2', [anEvent('PriceSet', { cents: 99 }), anEvent('Noted', {})], 'no_stream');
    const raw = await stores.events.readStream('price-2');
    expect(raw.map((e) => e.metadata.schemaVersion)).toEqual([2, 1]);
    expect((await events.readStream('price-2'))[0]!.data).toEqual({ cents: 99 });
  });

  it('upcasts what consumer-group members receive too', async () => {
    stores = sqliteStores();
    await stores.events.append('price-3', [anEvent('PriceSet', { cents: '7' })], 'no_stream');
    // KurrentDB's groups cannot run here: the narrowest stand-in hands the log to the one member.
    const inner = Object.assign(Object.create(stores.events) as typeof stores.events, {
      subscribeToGroup: (options: GroupSubscribeOptions) => {
        void stores.events.readAll().then((events) => options.onEvents(events));
        return { stop: async () => undefined };
      },
    });
    const received: RecordedEvent[] = [];
    new UpcastingEventStore(inner, registry()).subscribeToGroup!({
      group: 'g',
      eventTypes: ['PriceSet'],
      onEvents: async (events) => void received.push(...events),
    });
    await waitFor(() => received.length === 1, 'the member handed the event');
    expect(received[0]!.data).toEqual({ cents: 7 });
  });
});
