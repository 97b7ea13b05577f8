import type { QueryBus } from '@nestjs/cqrs';
import { afterEach, describe, expect, it } from 'vitest';
import { actionDefinition, policyDefinition } from '../../../../test/support/catalog-definitions.js';
import { CountingEventStore } from '../../../../test/support/counting-event-store.js';
import { anEvent } from '../../../../test/support/events.js';
import { sqliteStores } from '../../../../test/support/sqlite-stores.js';
import { GetCatalogSettingsQuery, GetEverEntitiesQuery, GetLiveEntitiesQuery } from '#warden/catalog';
import { itemStream } from '#warden/ingestion';
import { FixedClock, randomIds, type RecordedEvent } from '#warden/kernel';
import { AggregateStore } from '#warden/storage';
import { userStrikesStream } from '../domain/user-strikes.streams.js';
import { acceptedAppealOf } from './appeal-reversal.reactor.js';
import { actionsReactor } from './actions.reactor.js';
import { StrikeApplier } from './strike-applier.js';

const DAY = 86_400_000;
const T0 = new Date('2026-01-01T12:00:00Z');
const u1 = { id: 'u1', typeId: 'user' };

const action = (id: string, applyUserStrikes: boolean) => actionDefinition(id, { applyUserStrikes });
const spam = policyDefinition('spam', { name: 'Spam' });

/**
 * The narrowest seam: the catalog's answers (remove strikes 1 under spam; 2 strikes within 30 days
 * ban). Everything else is real: the SQLite log, the aggregate store, and the injected clock that
 * stamps every event, the published actions included.
 */
const catalogWith = (thresholdActionId: string) =>
  ({
    execute: async (query: unknown) => {
      if (query instanceof GetLiveEntitiesQuery) {
        if (query.kind === 'action') return [action('remove', true), action('ban', false)];
        if (query.kind === 'policy') return [spam];
        if (query.kind === 'itemType') return [{ id: 'user', name: 'User', kind: 'USER' }];
        return [];
      }
      if (query instanceof GetEverEntitiesQuery && query.kind === 'itemType') {
        return [
          { id: 'user', name: 'User', kind: 'USER' },
          { id: 'post', name: 'Post', kind: 'CONTENT' },
        ];
      }
      if (query instanceof GetCatalogSettingsQuery && query.section === 'strikes')
        return { windowDays: 30, thresholds: [{ strikes: 2, actionId: thresholdActionId }] };
      return undefined;
    },
  }) as unknown as QueryBus;
const catalog = catalogWith('ban');

describe('strike applier: the strike window with an injected clock', () => {
  let stores: ReturnType<typeof sqliteStores> | undefined;
  afterEach(async () => {
    await stores?.close();
    stores = undefined;
  });

  function world(queries = catalog) {
    stores = sqliteStores();
    const clock = new FixedClock(T0);
    const events = new CountingEventStore(stores.events);
    const aggregates = new AggregateStore(events, clock, randomIds);
    const applier = new StrikeApplier(queries, aggregates, events, clock);
    /** A rule's remove (or `actionId`) on post `itemId` of u1, published now (by the clock), as the rules engine records it. */
    const publish = async (itemId: string, actionId = 'remove'): Promise<RecordedEvent> => {
      const stream = `item_evaluation-acme:post:${itemId}:0`;
      await aggregates.record(
        stream,
        [
          {
            type: 'ActionCallbackRequested',
            data: {
              deliveryId: `d-${itemId}`,
              item: { id: itemId, typeId: 'post' },
              action: { id: actionId },
              policies: [{ id: 'spam', name: 'Spam', penalty: 'LOW' }],
              rules: [],
              custom: {},
              creator: u1,
              environment: 'LIVE',
              content: `digest-${itemId}:0`,
            },
          },
        ],
        { orgId: 'acme', correlationId: itemId, actor: 'rules' },
        'no_stream',
      );
      const [recorded] = await events.readStream(stream);
      return recorded!;
    };
    const userLog = async () => events.readStream(userStrikesStream('acme', u1)!);
    return { clock, applier, publish, userLog, events };
  }

  it('drops strikes older than windowDays from the count, so a threshold is crossed only by strikes within the window', async () => {
    const { clock, applier, publish, userLog } = world();
    expect(await applier.countAfter(await publish('p1'))).toBe(1);

    clock.advance(31 * DAY);
    expect(await applier.liveCount('acme', u1)).toBe(0);
    // Two strikes in all, but p1's is 31 days old: the count is 1 and the threshold of 2 is not crossed.
    expect(await applier.countAfter(await publish('p2'))).toBe(1);
    expect((await userLog()).map((e) => e.type)).toEqual(['UserStrikesApplied', 'UserStrikesApplied']);

    clock.advance(DAY);
    expect(await applier.countAfter(await publish('p3'))).toBe(2);
    const log = await userLog();
    expect(log.map((e) => e.type)).toEqual([
      'UserStrikesApplied',
      'UserStrikesApplied',
      'UserStrikesApplied',
      'UserStrikeThresholdCrossed',
      'ActionCallbackRequested',
    ]);
    expect(log[4]!.data).toMatchObject({ action: { id: 'ban' }, userStrikeCount: 2, trigger: 'strike-threshold' });

    clock.advance(30 * DAY);
    expect(await applier.liveCount('acme', u1)).toBe(0);
  });

  it('counts an action at the time it happened: counted two days late, it is in the window but its crossing does not fire', async () => {
    const { clock, applier, publish, userLog } = world();
    expect(await applier.countAfter(await publish('p1'))).toBe(1);
    const late = await publish('p2');
    clock.advance(2 * DAY);
    expect(await applier.countAfter(late)).toBe(2);
    const log = await userLog();
    expect(log.map((e) => e.type)).toEqual(['UserStrikesApplied', 'UserStrikesApplied', 'UserStrikeThresholdCrossed']);
    expect(log[1]!.data).toMatchObject({ appliedAt: T0.toISOString() });
    expect(log[2]!.data).toMatchObject({ strikes: 2, notFired: { ban: 'late' } });
  });

  it('applies one action once: asked again (the strikes reactor and the callbacks both ask), the same count', async () => {
    const { applier, publish, userLog } = world();
    const published = await publish('p1');
    expect(await applier.countAfter(published)).toBe(1);
    expect(await applier.countAfter(published)).toBe(1);
    expect(await userLog()).toHaveLength(1);
  });

  it('the actions reactor hands each action on once its strikes are in, with the count after it; a threshold’s own action with the count that crossed it; a re-run adds nothing', async () => {
    const { applier, publish, userLog } = world();
    const handedOn: Array<{ deliveryId: unknown; count: number | null }> = [];
    const reactor = actionsReactor({
      applier,
      deliveries: { record: async (event, count) => void handedOn.push({ deliveryId: event.data['deliveryId'], count }) },
    });
    // Given two actions on u1's posts; when the reactor handles them as one run of u1's key.
    await reactor.applyBatch!([await publish('p1'), await publish('p2')], undefined as never);
    // Then the second crossed the threshold of 2: ban, published on u1's strikes stream, in turn handed on.
    const log = await userLog();
    expect(log.map((e) => e.type)).toEqual(['UserStrikesApplied', 'UserStrikesApplied', 'UserStrikeThresholdCrossed', 'ActionCallbackRequested']);
    await reactor.apply(log[3]!, undefined as never);
    expect(handedOn).toEqual([
      { deliveryId: 'd-p1', count: 1 },
      { deliveryId: 'd-p2', count: 2 },
      { deliveryId: log[3]!.data['deliveryId'], count: 2 },
    ]);
    // A redelivered run: the same counts from the state, no strike twice.
    handedOn.length = 0;
    await reactor.applyBatch!([await published('p1'), await published('p2')], undefined as never);
    expect(handedOn.map((h) => h.count)).toEqual([1, 2]);
    expect(await userLog()).toHaveLength(4);
    // An action without strikes of its own, in a run after a striking one: the count after the one before it.
    handedOn.length = 0;
    const banned = await publish('p3', 'ban');
    await reactor.applyBatch!([await publish('p4'), banned], undefined as never);
    expect(handedOn.map((h) => h.count)).toEqual([3, 3]);
    // It takes over from the reactors that did this before it (Projection.succeeds).
    expect(reactor.succeeds).toEqual(['enforcement-strikes', 'callbacks-delivery']);
    expect(actionsReactor({ applier }).succeeds).toEqual(['enforcement-strikes']);

    /** The action published on `itemId`, as recorded. */
    async function published(itemId: string): Promise<RecordedEvent> {
      const [recorded] = await stores!.events.readStream(`item_evaluation-acme:post:${itemId}:0`);
      return recorded!;
    }
  });

  it('the actions reactor, its callback not recorded after the strikes are in (a failed write), strikes nothing twice when the run is handled again', async () => {
    const { applier, publish, userLog } = world();
    let failures = 1;
    const recorded: Array<number | null> = [];
    const reactor = actionsReactor({
      applier,
      deliveries: {
        record: async (_event, count) => {
          if (failures-- > 0) throw new Error('the delivery could not be recorded');
          recorded.push(count);
        },
      },
    });
    const p1 = await publish('p1');
    await expect(reactor.apply(p1, undefined as never)).rejects.toThrow(/could not be recorded/);
    expect(await userLog()).toHaveLength(1);
    await reactor.apply(p1, undefined as never);
    expect(recorded).toEqual([1]);
    expect(await userLog()).toHaveLength(1);
  });

  it("answers the count of an action the strikes reactor applied from the user's state: no read where the process knows it, one where it does not, never the user's item", async () => {
    const { applier, publish, events } = world();
    const published = await publish('p1');
    await applier.apply(published);
    events.reset();
    expect(await applier.countAfter(published)).toBe(1);
    // The state this process cached when it applied the strikes: nothing read, nothing decided.
    expect(events.streamReads).toBe(0);
    expect(events.appends).toBe(0);
    // Another process (a cache of its own): the user's strikes read once; the user's item not read, nothing decided.
    const elsewhere = new StrikeApplier(catalog, new AggregateStore(events, new FixedClock(T0), randomIds), events, new FixedClock(T0));
    expect(await elsewhere.countAfter(published)).toBe(1);
    expect(events.streamReads).toBe(1);
    expect(events.appends).toBe(0);
  });

  it("reads the user's item only where a threshold opens a review job, the one event that records its version", async () => {
    const streamsRead = (events: CountingEventStore) => {
      const read: string[] = [];
      const inner = events.readStream.bind(events);
      events.readStream = (stream, options) => (read.push(stream), inner(stream, options));
      return read;
    };
    const userItem = itemStream('acme', 'user', 'u1');
    // The threshold's action is a callback: no application reads the user's item.
    const calls = world();
    const readForCallback = streamsRead(calls.events);
    await calls.applier.apply(await calls.publish('p1'));
    await calls.applier.apply(await calls.publish('p2'));
    expect((await calls.userLog()).map((e) => e.type)).toEqual([
      'UserStrikesApplied',
      'UserStrikesApplied',
      'UserStrikeThresholdCrossed',
      'ActionCallbackRequested',
    ]);
    expect(readForCallback).not.toContain(userItem);
    await stores!.close();
    // The threshold opens a review job: read for each application, and the user item's latest version recorded.
    const jobs = world(catalogWith('enqueue-to-mrt'));
    const userVersion = {
      itemId: 'u1',
      typeId: 'user',
      typeVersion: null,
      typeSchemaVariant: 'original',
      data: {},
      creator: null,
      subject: 'user:u1',
      source: 'items',
    };
    await jobs.events.append(
      userItem,
      [0, 1].map(() => anEvent('ItemSubmitted', userVersion)),
      'no_stream',
    );
    const readForJob = streamsRead(jobs.events);
    await jobs.applier.apply(await jobs.publish('p1'));
    await jobs.applier.apply(await jobs.publish('p2'));
    expect(readForJob.filter((s) => s === userItem)).toHaveLength(2);
    const enqueued = (await jobs.userLog()).find((e) => e.type === 'ReviewEnqueueRequested');
    expect(enqueued?.data).toMatchObject({ item: { id: 'u1', typeId: 'user', typeName: 'User' }, version: 1, queueId: 'default' });
  });

  it("applies an action once when another process applied it after this one's state was cached: the append's expected revision catches it", async () => {
    const { applier, publish, events, userLog } = world();
    // This process knows the user's strikes after a first action.
    await applier.apply(await publish('p1'));
    // Another process applies the second action first.
    const second = await publish('p2');
    const elsewhere = new StrikeApplier(catalog, new AggregateStore(events, new FixedClock(T0), randomIds), events, new FixedClock(T0));
    expect(await elsewhere.countAfter(second)).toBe(2);
    const logged = (await userLog()).map((e) => e.id);
    // This process, on its stale state, is asked the same: the count after it, and the user's log unchanged.
    expect(await applier.countAfter(second)).toBe(2);
    expect((await userLog()).map((e) => e.id)).toEqual(logged);
  });
});

describe('strike applier: reversal by an accepted appeal', () => {
  let stores: ReturnType<typeof sqliteStores> | undefined;
  afterEach(async () => {
    await stores?.close();
    stores = undefined;
  });

  const context = { orgId: 'acme', correlationId: 'appeal', actor: 'enforcement' };
  function setUp() {
    stores = sqliteStores();
    const clock = new FixedClock(T0);
    const aggregates = new AggregateStore(stores.events, clock, randomIds);
    return { events: stores.events, aggregates, applier: new StrikeApplier(catalog, aggregates, stores.events, clock) };
  }
  const accepted = (appealId: string, item: { id: string; typeId: string }) => ({
    appealId,
    actionedItem: item,
    actionsTaken: ['remove'],
    decidedAt: T0.toISOString(),
  });

  it("reverses on the stored item's creator, once per appeal", async () => {
    const { events, aggregates, applier } = setUp();
    await aggregates.record(
      itemStream('acme', 'post', 'p1'),
      [
        {
          type: 'ItemSubmitted',
          data: { itemId: 'p1', typeId: 'post', typeVersion: null, typeSchemaVariant: 'original', data: {}, creator: u1, subject: 'user:u1', source: 'items' },
        },
      ],
      context,
      'no_stream',
    );
    await aggregates.record(
      'item_evaluation-acme:post:p1:0',
      [
        {
          type: 'ActionCallbackRequested',
          data: {
            deliveryId: 'd1',
            item: { id: 'p1', typeId: 'post' },
            action: { id: 'remove' },
            policies: [{ id: 'spam', name: 'Spam', penalty: 'LOW' }],
            rules: [],
            custom: {},
            creator: u1,
            environment: 'LIVE',
            content: 'c1',
          },
        },
      ],
      context,
      'no_stream',
    );
    const [published] = await events.readStream('item_evaluation-acme:post:p1:0');
    expect(await applier.countAfter(published!)).toBe(1);

    await applier.reverse('acme', accepted('ap-1', { id: 'p1', typeId: 'post' }), context);
    await applier.reverse('acme', accepted('ap-1', { id: 'p1', typeId: 'post' }), context);
    const log = await events.readStream(userStrikesStream('acme', u1)!);
    expect(log.map((e) => e.type)).toEqual(['UserStrikesApplied', 'UserActionsReversed']);
    expect(log[1]!.data).toMatchObject({ appealId: 'ap-1', user: u1, strikes: 1, countAfter: 0 });
    expect(await applier.liveCount('acme', u1)).toBe(0);
  });

  it('reverses on a USER item itself, even one Warden never stored (an executed action struck it)', async () => {
    const { events, aggregates, applier } = setUp();
    const never = { id: 'u-never', typeId: 'user' };
    await aggregates.record(
      'action_execution-acme:e1',
      [
        {
          type: 'ActionCallbackRequested',
          data: {
            deliveryId: 'd-e1',
            item: never,
            action: { id: 'remove' },
            policies: [{ id: 'spam', name: 'Spam', penalty: 'LOW' }],
            rules: [],
            custom: {},
            creator: never,
            environment: 'MANUAL',
            trigger: 'post-actions',
          },
        },
      ],
      context,
      'no_stream',
    );
    const [published] = await events.readStream('action_execution-acme:e1');
    expect(await applier.countAfter(published!)).toBe(1);
    await applier.reverse('acme', accepted('ap-2', never), context);
    expect(await applier.liveCount('acme', never)).toBe(0);
  });

  it('reverses nothing for a content item Warden never stored, a rejection, or an outcome recorded without what was appealed', async () => {
    const { events, applier } = setUp();
    await applier.reverse('acme', accepted('ap-3', { id: 'p-never', typeId: 'post' }), context);
    expect(await events.readAll()).toEqual([]);
    const decided = (data: object) => ({ type: 'AppealDecided', data, streamName: 'appeal-acme:x', revision: 1, position: 2 }) as never;
    const base = { appealId: 'x', decidedAt: T0.toISOString(), actionedItem: { id: 'p1', typeId: 'post' }, actionsTaken: ['remove'] };
    expect(acceptedAppealOf(decided({ ...base, decision: 'ACCEPT' }))).toMatchObject({ appealId: 'x', actionsTaken: ['remove'] });
    expect(acceptedAppealOf(decided({ ...base, decision: 'REJECT' }))).toBeUndefined();
    expect(acceptedAppealOf(decided({ appealId: 'x', decidedAt: T0.toISOString(), decision: 'ACCEPT' }))).toBeUndefined();
  });
});
