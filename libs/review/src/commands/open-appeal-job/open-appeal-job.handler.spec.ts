import { afterEach, describe, expect, it } from 'vitest';
import { anEvent } from '../../../../../test/support/events.js';
import { sqliteStores } from '../../../../../test/support/sqlite-stores.js';
import type { ReadDocument } from '#warden/readstore';
import { reviewJobStream } from '../../domain/review.streams.js';
import { REVIEW_JOBS } from '../../projections/review-jobs.read-model.js';
import { appealedDeciders } from '../../appealed-deciders.js';

describe('the moderators an appeal job is not offered to (appealedDeciders)', () => {
  let stores: ReturnType<typeof sqliteStores> | undefined;
  afterEach(async () => {
    await stores?.close();
    stores = undefined;
  });

  it("finds the appealed decision among an item's newest closed jobs, however many older ones it has", async () => {
    stores = sqliteStores();
    const item = { id: 'p1', typeId: 'post' };
    // 250 closed jobs, opened a minute apart, written oldest first: the newest holds the decision appealed.
    const docs = Array.from({ length: 250 }, (_, i) => ({
      orgId: 'acme',
      jobId: `j${i}`,
      itemTypeId: 'post',
      itemId: 'p1',
      state: 'CLOSED',
      openedAt: new Date(Date.UTC(2026, 0, 1, 0, i)).toISOString(),
      decision: i === 249 ? { actorId: 'mod-x' } : null,
    }));
    await stores.readStore.commit(
      docs.map((doc) => ({ op: 'put' as const, collection: REVIEW_JOBS, id: `acme:${doc.jobId}`, doc: doc as unknown as ReadDocument })),
    );
    await stores.events.append(
      reviewJobStream('acme', 'j249'),
      [anEvent('ReviewJobDecided', { jobId: 'j249', type: 'CUSTOM_ACTION', actionIds: ['remove'], actor: { userId: 'mod-x', email: null } })],
      'any',
    );
    expect(await appealedDeciders(stores.readStore, stores.events, 'acme', item, ['remove'])).toEqual(['mod-x']);
    expect(await appealedDeciders(stores.readStore, stores.events, 'acme', item, ['ban'])).toEqual([]);
  });
  it("answers from the read model's decisions, reading no job's stream, for an item decided hundreds of times", async () => {
    stores = sqliteStores();
    const item = { id: 'p2', typeId: 'post' };
    // 300 decided jobs (appeal jobs' decisions among them): each names its moderator and its actions.
    const docs = Array.from({ length: 300 }, (_, i) => ({
      orgId: 'acme',
      jobId: `k${i}`,
      itemTypeId: 'post',
      itemId: 'p2',
      state: 'CLOSED',
      openedAt: new Date(Date.UTC(2026, 0, 1, 0, i)).toISOString(),
      decision: { actorId: `mod-${i % 3}`, actionIds: i % 3 === 0 ? ['remove'] : i % 3 === 1 ? ['ban', 'remove'] : [] },
    }));
    await stores.readStore.commit(
      docs.map((doc) => ({ op: 'put' as const, collection: REVIEW_JOBS, id: `acme:${doc.jobId}`, doc: doc as unknown as ReadDocument })),
    );
    let reads = 0;
    const events = stores.events;
    const counting = { readStream: (...args: Parameters<typeof events.readStream>) => (reads++, events.readStream(...args)) };
    expect((await appealedDeciders(stores.readStore, counting as never, 'acme', item, ['remove'])).sort()).toEqual(['mod-0', 'mod-1']);
    expect(await appealedDeciders(stores.readStore, counting as never, 'acme', item, ['ban'])).toEqual(['mod-1']);
    expect(reads).toBe(0);
  });
});
