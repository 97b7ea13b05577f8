import { afterEach, describe, expect, it } from 'vitest';
import { anEvent } from '../../../../test/support/events.js';
import { sqliteStores } from '../../../../test/support/sqlite-stores.js';
import { ProjectionRunner, rebuildReadModels } from '#warden/eventstore';
import type { JsonObject } from '#warden/kernel';
import { appealOutcomesProjection } from './appeal-outcomes.projection.js';
import {
  APPEAL_ACTIONED_ACTIONS,
  APPEAL_OUTCOME_BUCKETS,
  APPEAL_OUTCOME_DAYS,
  APPEAL_OUTCOMES,
  type AppealOutcomeBucketDoc,
  type BucketUnit,
  outcomeBucketDocId,
  outcomeDayDocId,
  outcomeDocId,
} from './appeal-outcomes.read-model.js';
import { crashingBeforeCheckpoint, crashingPartway } from '../../../../test/support/crashing-read-store.js';

const callback = (itemId: string, actionId: string, named: { rules?: string[]; policies?: string[]; decision?: boolean; executed?: boolean }, orgId = 'acme') =>
  anEvent(
    'ActionCallbackRequested',
    {
      deliveryId: `d-${itemId}-${actionId}-${Math.random()}`,
      item: { id: itemId, typeId: 'post', typeName: 'Post' },
      action: { id: actionId },
      policies: (named.policies ?? []).map((id) => ({ id, name: `Policy ${id}`, penalty: 'LOW' })),
      rules: (named.rules ?? []).map((id) => ({ id, name: `Rule ${id}` })),
      custom: {},
      creator: null,
      ...(named.decision ? { trigger: 'decision', actorEmail: 'mod@example.com' } : {}),
      ...(named.executed ? { trigger: 'post-actions' } : {}),
    } as JsonObject,
    orgId,
  );

const appeal = (appealId: string, itemId: string, actionsTaken: string[], appealedAt = '2026-03-02T09:30:00Z', orgId = 'acme') =>
  anEvent(
    'AppealSubmitted',
    { appealId, appealedAt, actionedItem: { id: itemId, typeId: 'post' }, actionsTaken, violatingPolicyIds: [], subject: 'user:u1' } as JsonObject,
    orgId,
  );

const decided = (appealId: string, decision: 'ACCEPT' | 'REJECT', orgId = 'acme') =>
  anEvent('AppealDecided', { appealId, decision, jobId: 'j', decisionId: 'x', decidedBy: { userId: 'm' }, decidedAt: '2026-03-03T00:00:00Z' }, orgId);

describe('appeal outcomes projection', () => {
  let stores: ReturnType<typeof sqliteStores>;
  afterEach(async () => {
    await stores?.close();
  });

  const day = (dimension: 'rule' | 'policy' | 'moderators' | 'unattributed' | 'total', id = '', orgId = 'acme') =>
    stores.readStore.get(APPEAL_OUTCOME_DAYS, outcomeDayDocId(orgId, '2026-03-02', { dimension, id }));

  /** A bucket of the acme appeals (seed: all three at 2026-03-02T09:30:00.000Z): its total, and its entries' counts by dimension and id. */
  const bucket = async (unit: BucketUnit, start: string) => {
    const doc = await stores.readStore.get<AppealOutcomeBucketDoc>(APPEAL_OUTCOME_BUCKETS, outcomeBucketDocId('acme', unit, start));
    return (
      doc && { total: doc.total, entries: Object.fromEntries(doc.entries.map(({ dimension, id, name: _name, ...counts }) => [`${dimension}:${id}`, counts])) }
    );
  };

  async function seed() {
    const { events } = stores;
    await events.append('item_evaluation-acme:post:p1:0', [callback('p1', 'remove', { rules: ['r1'], policies: ['spam'] })], 'any');
    await events.append('review_job-acme:j2', [callback('p2', 'remove', { policies: ['spam'], decision: true })], 'any');
    // Another organization's callback of the same item and action charges nothing here.
    await events.append('item_evaluation-other:post:p2:0', [callback('p2', 'remove', { rules: ['r9'] }, 'other')], 'any');
    await events.append('appeal-acme:a1', [appeal('a1', 'p1', ['remove']), decided('a1', 'ACCEPT')], 'no_stream');
    await events.append('appeal-acme:a2', [appeal('a2', 'p2', ['remove'])], 'no_stream');
    await events.append('appeal-acme:a3', [appeal('a3', 'p3', ['remove']), decided('a3', 'REJECT')], 'no_stream');
    await events.append('appeal-acme:a2', [decided('a2', 'REJECT'), decided('a2', 'ACCEPT')], 0);
  }

  it('charges each appeal to the rules, policies and decisions of the callbacks it appeals, per day', async () => {
    stores = sqliteStores();
    await seed();
    await new ProjectionRunner(appealOutcomesProjection, stores.events, stores.readStore).catchUp();
    expect(await day('total')).toMatchObject({ received: 3, decided: 3, accepted: 1, rejected: 2 });
    expect(await day('rule', 'r1')).toMatchObject({ name: 'Rule r1', received: 1, decided: 1, accepted: 1, rejected: 0 });
    // a2 was decided once: its second AppealDecided (never recorded by the decider, but here) counts for nothing.
    expect(await day('policy', 'spam')).toMatchObject({ name: 'Policy spam', received: 2, decided: 2, accepted: 1, rejected: 1 });
    expect(await day('moderators')).toMatchObject({ received: 1, decided: 1, rejected: 1 });
    expect(await day('unattributed')).toMatchObject({ received: 1, rejected: 1 });
    expect(await day('rule', 'r9')).toBeUndefined();
    // The same counts in each bucket of their appealedAt (all three at 09:30:00.000), from the hour to the millisecond.
    for (const [unit, start] of [
      ['h', '2026-03-02T09:00:00.000Z'],
      ['m', '2026-03-02T09:30:00.000Z'],
      ['s', '2026-03-02T09:30:00.000Z'],
      ['10ms', '2026-03-02T09:30:00.000Z'],
      ['ms', '2026-03-02T09:30:00.000Z'],
    ] as const) {
      expect(await bucket(unit, start)).toEqual({
        total: { received: 3, decided: 3, accepted: 1, rejected: 2 },
        entries: {
          'rule:r1': { received: 1, decided: 1, accepted: 1, rejected: 0 },
          'policy:spam': { received: 2, decided: 2, accepted: 1, rejected: 1 },
          'moderators:': { received: 1, decided: 1, accepted: 0, rejected: 1 },
          'unattributed:': { received: 1, decided: 1, accepted: 0, rejected: 1 },
        },
      });
    }
  });

  it('files an appealedAt in every form the API accepts (a comma fraction, an hours-only offset, no offset) on its UTC day, and goes on past it', async () => {
    stores = sqliteStores();
    await stores.events.append('appeal-acme:a1', [appeal('a1', 'p1', ['remove'], '2026-03-02T09:30:00,5Z')], 'no_stream');
    await stores.events.append('appeal-acme:a2', [appeal('a2', 'p2', ['remove'], '2026-03-02T01:30+02')], 'no_stream');
    await stores.events.append('appeal-acme:a3', [appeal('a3', 'p3', ['remove'], '2026-03-02T23:30')], 'no_stream');
    await stores.events.append('appeal-acme:a4', [appeal('a4', 'p4', ['remove'])], 'no_stream');
    await new ProjectionRunner(appealOutcomesProjection, stores.events, stores.readStore).catchUp();
    expect(await day('total')).toMatchObject({ received: 3 });
    expect(await stores.readStore.get(APPEAL_OUTCOMES, outcomeDocId('acme', 'a1'))).toMatchObject({
      appealedAt: '2026-03-02T09:30:00.500Z',
      day: '2026-03-02',
    });
    expect(await stores.readStore.get(APPEAL_OUTCOMES, outcomeDocId('acme', 'a2'))).toMatchObject({
      appealedAt: '2026-03-01T23:30:00.000Z',
      day: '2026-03-01',
    });
    expect(await stores.readStore.get(APPEAL_OUTCOMES, outcomeDocId('acme', 'a3'))).toMatchObject({ appealedAt: '2026-03-02T23:30:00.000Z' });
  });

  it('counts each appeal and decision once when a commit landed the outcomes but not the daily counts (MongoDB writes collection by collection)', async () => {
    stores = sqliteStores();
    await seed();
    const partway = crashingPartway(stores.readStore, [APPEAL_OUTCOMES, APPEAL_ACTIONED_ACTIONS]);
    await expect(new ProjectionRunner(appealOutcomesProjection, stores.events, partway).catchUp()).rejects.toThrow();
    expect(await day('total')).toBeUndefined();
    await new ProjectionRunner(appealOutcomesProjection, stores.events, stores.readStore).catchUp();
    expect(await day('total')).toMatchObject({ received: 3, decided: 3, accepted: 1, rejected: 2 });
    expect(await day('policy', 'spam')).toMatchObject({ received: 2, decided: 2, accepted: 1, rejected: 1 });
    expect((await bucket('ms', '2026-03-02T09:30:00.000Z'))?.total).toEqual({ received: 3, decided: 3, accepted: 1, rejected: 2 });
    expect((await bucket('h', '2026-03-02T09:00:00.000Z'))?.entries['policy:spam']).toEqual({ received: 2, decided: 2, accepted: 1, rejected: 1 });
  });

  it('counts each appeal and decision once in its buckets when a commit landed the days but not the buckets', async () => {
    stores = sqliteStores();
    await seed();
    const partway = crashingPartway(stores.readStore, [APPEAL_OUTCOMES, APPEAL_ACTIONED_ACTIONS, APPEAL_OUTCOME_DAYS]);
    await expect(new ProjectionRunner(appealOutcomesProjection, stores.events, partway).catchUp()).rejects.toThrow();
    expect(await day('total')).toMatchObject({ received: 3, decided: 3 });
    expect(await bucket('h', '2026-03-02T09:00:00.000Z')).toBeUndefined();
    await new ProjectionRunner(appealOutcomesProjection, stores.events, stores.readStore).catchUp();
    expect(await day('total')).toMatchObject({ received: 3, decided: 3, accepted: 1, rejected: 2 });
    for (const unit of ['h', 'm', 's', '10ms', 'ms'] as const) {
      const start = unit === 'h' ? '2026-03-02T09:00:00.000Z' : '2026-03-02T09:30:00.000Z';
      expect((await bucket(unit, start))?.total).toEqual({ received: 3, decided: 3, accepted: 1, rejected: 2 });
    }
  });

  it('charges an appeal of an action the platform executed (POST /api/v1/actions) to its policies and to the moderators entry', async () => {
    stores = sqliteStores();
    await stores.events.append('action_execution-acme:e1', [callback('p7', 'ban', { policies: ['spam'], executed: true })], 'no_stream');
    await stores.events.append('appeal-acme:a7', [appeal('a7', 'p7', ['ban']), decided('a7', 'ACCEPT')], 'no_stream');
    await new ProjectionRunner(appealOutcomesProjection, stores.events, stores.readStore).catchUp();
    expect(await day('moderators')).toMatchObject({ received: 1, decided: 1, accepted: 1 });
    expect(await day('policy', 'spam')).toMatchObject({ received: 1, accepted: 1 });
    expect(await day('unattributed')).toBeUndefined();
  });

  it('changes nothing when a batch is delivered again, and a rebuild gives the same documents', async () => {
    stores = sqliteStores();
    await seed();
    const dump = async () =>
      JSON.stringify(
        await Promise.all([APPEAL_ACTIONED_ACTIONS, APPEAL_OUTCOMES, APPEAL_OUTCOME_DAYS, APPEAL_OUTCOME_BUCKETS].map((c) => stores.readStore.find(c))),
      );
    // A process that dies after the writes, before its checkpoint moved (MongoDB's window).
    const crashing = crashingBeforeCheckpoint(stores.readStore);
    await expect(new ProjectionRunner(appealOutcomesProjection, stores.events, crashing).catchUp()).rejects.toThrow('crashed');
    expect(await day('total')).toMatchObject({ received: 3, decided: 3 });
    await new ProjectionRunner(appealOutcomesProjection, stores.events, stores.readStore).catchUp();
    expect(await day('total')).toMatchObject({ received: 3, decided: 3, accepted: 1, rejected: 2 });
    const delivered = await dump();
    await rebuildReadModels([appealOutcomesProjection], stores.events, stores.readStore);
    expect(await dump()).toBe(delivered);
  });
});
