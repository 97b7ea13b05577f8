import type { QueryBus } from '@nestjs/cqrs';
import { afterEach, describe, expect, it } from 'vitest';
import { actionDefinition, policyDefinition } from '../../../../../test/support/catalog-definitions.js';
import { anEvent } from '../../../../../test/support/events.js';
import { sqliteStores } from '../../../../../test/support/sqlite-stores.js';
import { GetLiveEntitiesQuery } from '#warden/catalog';
import {
  type EventStore,
  EventStoreDecorator,
  PersonalDataEventStore,
  PersonalDataPolicy,
  type ReadStreamOptions,
  SqliteSubjectKeyStore,
  type SubjectKeyStore,
} from '#warden/eventstore';
import { INGESTION_PERSONAL_DATA, itemStream } from '#warden/ingestion/contracts';
import { FixedClock, type NewEvent, randomIds, type RecordedEvent } from '#warden/kernel';
import type { WardenConfig } from '#warden/platform';
import { AggregateStore } from '#warden/storage';
import { actionExecutionStream } from '../../domain/action-execution.streams.js';
import { bulkExecutionId } from '../../domain/bulk-action.streams.js';
import { PREVIEW_BATCH, PreviewBulkActionHandler } from './preview-bulk-action.handler.js';
import { PreviewBulkActionQuery } from './preview-bulk-action.query.js';

const remove = actionDefinition('remove', { name: 'Remove', itemTypeIds: ['post', 'comment'] });
const spam = policyDefinition('spam', { name: 'Spam' });
const catalog = {
  execute: async (query: unknown) => {
    if (!(query instanceof GetLiveEntitiesQuery)) return undefined;
    if (query.kind === 'action') return [remove];
    if (query.kind === 'policy') return [spam];
    return [
      { id: 'post', name: 'Post', kind: 'CONTENT' },
      { id: 'comment', name: 'Comment', kind: 'CONTENT' },
    ];
  },
} as unknown as QueryBus;

/** The log as the application reads it, each stream read and last-revision look-up noted with the turn of the event loop it was made in. */
class TurnCountingEventStore extends EventStoreDecorator {
  readonly lookups: Array<{ readonly stream: string; readonly turn: number }> = [];
  streamReads = 0;

  constructor(
    inner: EventStore,
    private readonly turn: () => number,
  ) {
    super(inner);
  }

  override lastRevision(streamName: string): Promise<number | undefined> {
    this.lookups.push({ stream: streamName, turn: this.turn() });
    return super.lastRevision(streamName);
  }

  override readStream(streamName: string, options?: ReadStreamOptions): Promise<RecordedEvent[]> {
    this.streamReads++;
    return super.readStream(streamName, options);
  }

  protected onAppend(events: readonly NewEvent[]): readonly NewEvent[] {
    return events;
  }

  protected onRead(events: readonly RecordedEvent[]): RecordedEvent[] {
    return [...events];
  }
}

const ITEMS = 5 * PREVIEW_BATCH + 50;

/**
 * A preview against the real SQLite log behind the personal-data codec: the counts, and what the
 * look-ups cost. SQLite reads are synchronous, so only a turn of the event loop between batches
 * lets other requests in. Turns are counted, never timed: a ticker that re-arms itself with
 * setImmediate moves on once per turn of the loop, whatever the machine's speed.
 */
describe('PreviewBulkActionHandler', () => {
  let stores: ReturnType<typeof sqliteStores> | undefined;
  afterEach(async () => {
    await stores?.close();
    stores = undefined;
  });

  it('counts 1,050 items with one batch of look-ups per turn of the event loop, no event read or opened', async () => {
    stores = sqliteStores();
    const keyStore = new SqliteSubjectKeyStore(stores.open());
    let keyLookups = 0;
    const keys: SubjectKeyStore = {
      keyFor: (orgId, subjectId) => keyStore.keyFor(orgId, subjectId),
      findMany: (keyIds) => (keyLookups++, keyStore.findMany(keyIds)),
      forget: (orgId, subjectId) => keyStore.forget(orgId, subjectId),
      erasures: () => keyStore.erasures(),
      close: () => keyStore.close(),
    };
    const sealed = new PersonalDataEventStore(stores.events, new PersonalDataPolicy().registerAll(INGESTION_PERSONAL_DATA), keys);
    let turn = 0;
    const events = new TurnCountingEventStore(sealed, () => turn);
    const handler = new PreviewBulkActionHandler(new AggregateStore(events, new FixedClock(new Date('2026-03-01T00:00:00Z')), randomIds), catalog, {
      maxItemsPerRequest: 100,
    } as WardenConfig);

    // Two of three items stored (their content sealed), every fifth of those actioned already by
    // this action, policy and reason; a missing item's id stored in another organization.
    const reason = 'spam wave';
    const items = Array.from({ length: ITEMS }, (_, i) => ({ id: `i${i}`, typeId: i % 2 === 0 ? 'post' : 'comment' }));
    const expected = new Map<string, { items: number; existing: number; missing: number; newActions: number; alreadyActioned: number }>();
    const appends: Promise<unknown>[] = [];
    items.forEach((item, i) => {
      const counts =
        expected.get(item.typeId) ?? expected.set(item.typeId, { items: 0, existing: 0, missing: 0, newActions: 0, alreadyActioned: 0 }).get(item.typeId)!;
      counts.items++;
      if (i % 3 === 0) {
        counts.missing++;
        appends.push(
          events.append(
            itemStream('other', item.typeId, item.id),
            [anEvent('ItemSubmitted', { subject: 'user:o', data: { text: 'x' } }, 'other')],
            'no_stream',
          ),
        );
        return;
      }
      counts.existing++;
      appends.push(
        events.append(
          itemStream('acme', item.typeId, item.id),
          [anEvent('ItemSubmitted', { subject: `user:u${i}`, data: { text: `secret ${i}` } })],
          'no_stream',
        ),
      );
      if (i % 5 === 0) {
        counts.alreadyActioned++;
        const execution = actionExecutionStream('acme', bulkExecutionId('acme', 'remove', ['spam'], reason, item));
        appends.push(events.append(execution, [anEvent('ActionExecuted', { actionId: 'remove' })], 'no_stream'));
      } else counts.newActions++;
    });
    await Promise.all(appends);
    events.lookups.length = 0;
    events.streamReads = 0;
    keyLookups = 0;

    let ticking = true;
    const tick = () => {
      turn++;
      if (ticking) setImmediate(tick);
    };
    setImmediate(tick);
    const body = { actionId: 'remove', policyIds: ['spam'], reason, items: [...items, ...items.slice(0, 7)] };
    const preview = await handler.execute(new PreviewBulkActionQuery('acme', body)).finally(() => (ticking = false));

    // The answer.
    const sum = (key: 'items' | 'existing' | 'missing' | 'newActions' | 'alreadyActioned') => [...expected.values()].reduce((n, c) => n + c[key], 0);
    expect(preview).toEqual({
      items: ITEMS,
      existing: sum('existing'),
      missing: sum('missing'),
      newActions: sum('newActions'),
      alreadyActioned: sum('alreadyActioned'),
      duplicates: 7,
      byType: [...expected].map(([typeId, counts]) => ({ typeId, ...counts })),
    });
    expect(preview.alreadyActioned).toBeGreaterThan(0);
    expect(preview.missing).toBeGreaterThan(0);

    // What it cost: one look-up per item and one per existing item's execution, no event read, nothing opened.
    const itemLookups = events.lookups.filter((l) => l.stream.startsWith('item-'));
    const executionLookups = events.lookups.filter((l) => l.stream.startsWith('action_execution-'));
    expect(itemLookups).toHaveLength(ITEMS);
    expect(executionLookups).toHaveLength(preview.existing);
    expect(events.lookups).toHaveLength(ITEMS + preview.existing);
    expect(events.streamReads).toBe(0);
    expect(keyLookups).toBe(0);

    // At most one batch per turn of the event loop: the 1,050 items in 6 turns.
    const perTurn = (lookups: typeof events.lookups) => [...Map.groupBy(lookups, (l) => l.turn).values()].map((l) => l.length);
    expect(Math.max(...perTurn(itemLookups))).toBeLessThanOrEqual(PREVIEW_BATCH);
    expect(Math.max(...perTurn(executionLookups))).toBeLessThanOrEqual(PREVIEW_BATCH);
    expect(perTurn(itemLookups)).toHaveLength(Math.ceil(ITEMS / PREVIEW_BATCH));
  });
});
