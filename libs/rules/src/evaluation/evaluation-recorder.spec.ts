import { afterAll, describe, expect, it } from 'vitest';
import { SqliteEventStore } from '#warden/eventstore';
import { itemStream } from '#warden/ingestion';
import { type CommandContext, FixedClock, randomIds, recordedAs } from '#warden/kernel';
import { AggregateStore } from '#warden/storage';
import { CountingEventStore } from '../../../../test/support/counting-event-store.js';
import { sqliteStores } from '../../../../test/support/sqlite-stores.js';
import type { ItemEvaluated } from '../domain/evaluation.events.js';
import { evaluationStream } from '../domain/evaluation.streams.js';
import { contentKey, itemContentDigest } from '../domain/item-content.js';
import { ContentKeyReader } from './content-key-reader.js';
import type { DailyActionCap } from './daily-action-cap.js';
import { EvaluationRecorder } from './evaluation-recorder.js';
import type { PreparedEvaluation } from './item-evaluator.js';

const ORG = 'acme';
const ENV = 'LIVE';
const context: CommandContext = { orgId: ORG, correlationId: 'c', actor: 'test' };
const content = { data: { text: 'buy now' }, creator: { id: 'u1', typeId: 'user' } };

describe("EvaluationRecorder: each version's content key, for the next version's", () => {
  const stores = sqliteStores();
  afterAll(() => stores.close());
  const events = new CountingEventStore(new SqliteEventStore(stores.open()));
  const aggregates = new AggregateStore(events, new FixedClock(new Date('2026-12-02T00:00:00Z')), randomIds);
  // No rule here has a daily cap: the cap is never asked.
  const recorder = new EvaluationRecorder(aggregates, undefined as unknown as DailyActionCap, new ContentKeyReader(events), events);

  /** A version of item `id` evaluated with no rule passing (nothing published), in `run`'s options. */
  const prepared = (id: string, version: number, options: { rules?: [] } = {}, source: 'items' | 'partial-fetch' = 'items'): PreparedEvaluation => ({
    kind: 'new',
    stream: evaluationStream(ORG, 'post', id, version, options.rules ? `${ENV}:` : ENV),
    context,
    options: { environment: ENV, ...options },
    item: { id, typeId: 'post', ...content, subject: 'user:u1', source },
    draft: {
      item: { id, typeId: 'post', typeName: 'Post' },
      version,
      environment: ENV,
      subject: 'user:u1',
      rules: [],
      rulesById: new Map(),
      actions: new Map(),
      policies: new Map(),
      caps: [],
    },
    media: [],
  });
  const recordedKey = async (id: string, version: number, run = ENV) => {
    const [first] = await events.readStream(evaluationStream(ORG, 'post', id, version, run), { maxCount: 1 });
    return first && recordedAs<ItemEvaluated>(first, 'ItemEvaluated')?.data.content;
  };
  async function submitted(id: string, count: number): Promise<void> {
    const versions = Array.from({ length: count }, () => ({
      id: randomIds.uuid(),
      type: 'ItemSubmitted',
      data: { itemId: id, typeId: 'post', typeVersion: null, typeSchemaVariant: 'original', ...content, subject: 'user:u1', source: 'report' },
      metadata: { orgId: ORG, correlationId: 'c', causationId: null, actor: 'test', occurredAt: '2026-12-02T00:00:00.000Z', schemaVersion: 1 },
    }));
    await events.append(itemStream(ORG, 'post', id), versions, 'no_stream');
  }

  it('records the key of every version after the first, each read from the one before: a read or two per version', async () => {
    await submitted('p1', 200);
    await recorder.record(prepared('p1', 0));
    expect(await recordedKey('p1', 0)).toBeUndefined();
    events.reset();
    for (let v = 1; v < 200; v++) await recorder.record(prepared('p1', v));
    // Version 1 reads back to version 0 (no key recorded for a first version that published nothing); the others, one record each.
    expect(events.eventsRead).toBeLessThanOrEqual(2 * 199);
    expect(await recordedKey('p1', 199)).toBe(contentKey(itemContentDigest(content), 0));
  });

  it("records none for a retroaction's run or a version fetched from the customer (the live run never sees those)", async () => {
    await submitted('p2', 3);
    await recorder.record(prepared('p2', 1, { rules: [] }));
    expect(await recordedKey('p2', 1, `${ENV}:`)).toBeUndefined();
    await recorder.record(prepared('p2', 2, {}, 'partial-fetch'));
    expect(await recordedKey('p2', 2)).toBeUndefined();
  });
});
