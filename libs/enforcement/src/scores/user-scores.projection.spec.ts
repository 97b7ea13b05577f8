import { afterEach, describe, expect, it } from 'vitest';
import { anEvent } from '../../../../test/support/events.js';
import { sqliteStores } from '../../../../test/support/sqlite-stores.js';
import { ProjectionRunner, rebuildReadModels } from '#warden/eventstore';
import { itemStream } from '#warden/ingestion';
import type { JsonObject } from '#warden/kernel';
import { userScoresProjection } from './user-scores.projection.js';
import {
  USER_SCORE_FETCHED_ITEMS,
  USER_SCORE_ITEMS,
  USER_SCORES,
  type UserScoreDoc,
  userScoreDocId,
  type UserScoreItemDoc,
  userScoreItemDocId,
} from './user-scores.read-model.js';
import { crashingBeforeCheckpoint } from '../../../../test/support/crashing-read-store.js';

const alice = { id: 'alice', typeId: 'user' };
const bob = { id: 'bob', typeId: 'user' };

const submitted = (itemId: string, creator: { id: string; typeId: string } | null, typeId = 'post', orgId = 'acme', source = 'items') =>
  anEvent('ItemSubmitted', { itemId, typeId, typeVersion: null, typeSchemaVariant: 'original', data: {}, creator, subject: 'x', source } as JsonObject, orgId);
/** A version fetched from the customer's partial-items endpoint (docs/partial-items.md). */
const fetched = (itemId: string, creator: { id: string; typeId: string } | null, typeId = 'post') =>
  submitted(itemId, creator, typeId, 'acme', 'partial-fetch');

const actioned = (itemId: string, creator: { id: string; typeId: string } | null, actionId: string, penalties: string[], extra: object = {}) =>
  anEvent('ActionCallbackRequested', {
    deliveryId: `${itemId}-${actionId}-${penalties.join()}`,
    item: { id: itemId, typeId: 'post', typeName: 'Post' },
    action: { id: actionId },
    policies: penalties.map((penalty, i) => ({ id: `p${i}`, name: `P${i}`, penalty })),
    rules: [],
    custom: {},
    creator,
    environment: 'LIVE',
    ...extra,
  } as JsonObject);

describe('user scores projection', () => {
  let stores: ReturnType<typeof sqliteStores>;
  afterEach(async () => {
    await stores?.close();
  });

  const doc = (user: { id: string; typeId: string }, orgId = 'acme') => stores.readStore.get<UserScoreDoc>(USER_SCORES, userScoreDocId(orgId, user));
  const itemDoc = (user: { id: string; typeId: string }, itemId: string) =>
    stores.readStore.get<UserScoreItemDoc>(USER_SCORE_ITEMS, userScoreItemDocId('acme', user, { id: itemId, typeId: 'post' }));
  /** The item's actions as recorded: action ids, in the order first taken. */
  const actionsOn = async (user: { id: string; typeId: string }, itemId: string) => (await itemDoc(user, itemId))?.actions.map((a) => a.actionId) ?? [];

  async function seed() {
    stores = sqliteStores();
    const { events } = stores;
    // alice: three posts, one of them in two versions; p1 actioned by two rules and a moderator.
    await events.append(itemStream('acme', 'post', 'p1'), [submitted('p1', alice)], 'no_stream');
    await events.append(itemStream('acme', 'post', 'p1'), [submitted('p1', alice)], 0);
    await events.append(itemStream('acme', 'post', 'p2'), [submitted('p2', alice)], 'no_stream');
    await events.append(itemStream('acme', 'post', 'p3'), [submitted('p3', alice)], 'no_stream');
    await events.append('item_evaluation-1', [actioned('p1', alice, 'remove', ['LOW']), actioned('p1', alice, 'remove', ['HIGH'])], 'no_stream');
    await events.append('review_job-1', [actioned('p1', alice, 'ban', [], { trigger: 'decision', environment: 'MANUAL' })], 'no_stream');
    // A threshold's action is not counted again; an item without a known user is nobody's.
    await events.append('user_strikes-1', [actioned('alice', alice, 'suspend', [], { trigger: 'strike-threshold' })], 'no_stream');
    await events.append(itemStream('acme', 'post', 'anon'), [submitted('anon', null)], 'no_stream');
    // bob's user item is his own submission; the same ids in another organization are another user.
    await events.append(itemStream('acme', 'user', 'bob'), [submitted('bob', bob, 'user')], 'no_stream');
    await events.append(itemStream('other', 'post', 'p1'), [submitted('p1', alice, 'post', 'other')], 'no_stream');
  }

  it('counts items (not versions) a user created and, per actioned item, each action once with the penalties of its policies', async () => {
    await seed();
    await new ProjectionRunner(userScoresProjection, stores.events, stores.readStore).catchUp();
    // The item's actions, each once with the penalties of its policies.
    expect(await itemDoc(alice, 'p1')).toEqual({
      orgId: 'acme',
      user: alice,
      item: { id: 'p1', typeId: 'post' },
      actions: [
        // One key per publication (here: two deliveries).
        { actionId: 'remove', policyPenalties: ['HIGH', 'LOW'], keys: [expect.any(String), expect.any(String)] },
        { actionId: 'ban', policyPenalties: [], keys: [expect.any(String)] },
      ],
    });
    // The user's: one item actioned with that combination.
    expect(await doc(alice)).toEqual({ orgId: 'acme', user: alice, submissions: 3, actionedBy: { '[["ban",[]],["remove",["HIGH","LOW"]]]': 1 } });
    expect(await doc(bob)).toMatchObject({ submissions: 1, actionedBy: {} });
    expect(await doc(alice, 'other')).toMatchObject({ orgId: 'other', submissions: 1, actionedBy: {} });
    expect(await stores.readStore.count(USER_SCORES)).toBe(3);
    expect(await stores.readStore.count(USER_SCORE_ITEMS)).toBe(1);
  });

  it('counts no fetched version as a submission: an item first known from a fetch counts once, when the platform submits it', async () => {
    stores = sqliteStores();
    const { events } = stores;
    const carol = { id: 'carol', typeId: 'user' };
    // A partial post submitted, then fetched whole (its rule needed a missing field): one submission.
    await events.append(itemStream('acme', 'post', 'q1'), [submitted('q1', carol)], 'no_stream');
    await events.append(itemStream('acme', 'post', 'q1'), [fetched('q1', carol)], 0);
    // Carol's user item, never received, fetched as the related item of the console's "load full item", twice.
    await events.append(itemStream('acme', 'user', 'carol'), [fetched('carol', carol, 'user')], 'no_stream');
    await events.append(itemStream('acme', 'user', 'carol'), [fetched('carol', carol, 'user')], 0);
    // A post by carol known only from a fetch.
    await events.append(itemStream('acme', 'post', 'q2'), [fetched('q2', carol)], 'no_stream');
    const runner = () => new ProjectionRunner(userScoresProjection, stores.events, stores.readStore).catchUp();
    await runner();
    expect(await doc(carol)).toMatchObject({ submissions: 1 });
    // The platform then submits carol's user item: it counts now, and once.
    await events.append(itemStream('acme', 'user', 'carol'), [submitted('carol', carol, 'user')], 1);
    await events.append(itemStream('acme', 'user', 'carol'), [submitted('carol', carol, 'user')], 2);
    await runner();
    expect(await doc(carol)).toMatchObject({ submissions: 2 });
    // Fetched again after being submitted: no more.
    await events.append(itemStream('acme', 'user', 'carol'), [fetched('carol', carol, 'user')], 3);
    await events.append(itemStream('acme', 'post', 'q1'), [submitted('q1', carol)], 1);
    await runner();
    expect(await doc(carol)).toMatchObject({ submissions: 2 });
    // What is left to remember: q2, still known only from its fetch.
    expect(await stores.readStore.count(USER_SCORE_FETCHED_ITEMS)).toBe(1);
    // A rebuild agrees.
    await rebuildReadModels([userScoresProjection], stores.events, stores.readStore);
    expect(await doc(carol)).toMatchObject({ submissions: 2 });
  });

  it('counts a first-fetched item once when the batch submitting it is delivered again after a crash', async () => {
    stores = sqliteStores();
    const carol = { id: 'carol', typeId: 'user' };
    await stores.events.append(itemStream('acme', 'post', 'q3'), [fetched('q3', carol)], 'no_stream');
    await new ProjectionRunner(userScoresProjection, stores.events, stores.readStore).catchUp();
    await stores.events.append(itemStream('acme', 'post', 'q3'), [submitted('q3', carol)], 0);
    await expect(new ProjectionRunner(userScoresProjection, stores.events, crashingBeforeCheckpoint(stores.readStore)).catchUp()).rejects.toThrow(/crash/);
    expect(await doc(carol)).toMatchObject({ submissions: 1 });
    await new ProjectionRunner(userScoresProjection, stores.events, stores.readStore).catchUp();
    expect(await doc(carol)).toMatchObject({ submissions: 1 });
  });

  it("takes reversed actions out of the user's actioned items (an accepted appeal), once", async () => {
    await seed();
    const reversed = (appealId: string, actionIds: string[]) =>
      anEvent('UserActionsReversed', {
        appealId,
        user: alice,
        item: { id: 'p1', typeId: 'post' },
        actionIds,
        keys: [],
        strikes: 0,
        countAfter: 0,
        reversedAt: '2026-03-01T00:00:00Z',
      });
    await stores.events.append('user_strikes-acme:user:alice', [reversed('ap-1', ['remove'])], 'no_stream');
    await new ProjectionRunner(userScoresProjection, stores.events, stores.readStore).catchUp();
    expect((await itemDoc(alice, 'p1'))?.actions).toEqual([{ actionId: 'ban', policyPenalties: [], keys: [expect.any(String)] }]);
    expect((await itemDoc(alice, 'p1'))?.reversedKeys).toHaveLength(2);
    expect((await doc(alice))?.actionedBy).toEqual({ '[["ban",[]]]': 1 });
    // The reversed removal published again (its content re-sent, a retroaction): it stays out.
    await stores.events.append('item_evaluation-1', [actioned('p1', alice, 'remove', ['LOW'])], 1);
    await new ProjectionRunner(userScoresProjection, stores.events, stores.readStore).catchUp();
    expect(await actionsOn(alice, 'p1')).toEqual(['ban']);
    await stores.events.append('user_strikes-acme:user:alice', [reversed('ap-2', ['ban', 'remove'])], 0);
    await new ProjectionRunner(userScoresProjection, stores.events, stores.readStore).catchUp();
    expect(await doc(alice)).toMatchObject({ submissions: 3, actionedBy: {} });
    expect(await actionsOn(alice, 'p1')).toEqual([]);
    // A new publication of the action (another delivery: changed content, a new decision) counts again.
    await stores.events.append('item_evaluation-1', [actioned('p1', alice, 'remove', ['SEVERE'])], 2);
    await new ProjectionRunner(userScoresProjection, stores.events, stores.readStore).catchUp();
    expect((await itemDoc(alice, 'p1'))?.actions).toEqual([{ actionId: 'remove', policyPenalties: ['SEVERE'], keys: [expect.any(String)] }]);
    expect((await doc(alice))?.actionedBy).toEqual({ '[["remove",["SEVERE"]]]': 1 });
  });

  it('changes nothing when a batch is delivered again after a crash before its checkpoint moved', async () => {
    await seed();
    await new ProjectionRunner(userScoresProjection, stores.events, stores.readStore).catchUp();
    const before = await stores.readStore.find(USER_SCORES, {}, { sort: [{ field: 'user.id', direction: 'asc' }] });
    const checkpoint = await stores.readStore.checkpoint(userScoresProjection.name);
    // More events; the run that applies them "crashes" after its writes landed, before its checkpoint moved.
    await stores.events.append(itemStream('acme', 'post', 'p4'), [submitted('p4', alice)], 'no_stream');
    await stores.events.append('item_evaluation-2', [actioned('p4', alice, 'remove', ['SEVERE'])], 'no_stream');
    await expect(new ProjectionRunner(userScoresProjection, stores.events, crashingBeforeCheckpoint(stores.readStore)).catchUp()).rejects.toThrow(/crash/);
    expect(await stores.readStore.checkpoint(userScoresProjection.name)).toBe(checkpoint);
    const afterCrash = await doc(alice);
    expect(afterCrash?.submissions).toBe(4);
    // Redelivered: the same state, not 5 submissions.
    await new ProjectionRunner(userScoresProjection, stores.events, stores.readStore).catchUp();
    expect(await doc(alice)).toEqual(afterCrash);
    expect(before).toHaveLength(3);
  });

  it('rebuilds to the same documents, twice', async () => {
    await seed();
    await new ProjectionRunner(userScoresProjection, stores.events, stores.readStore).catchUp();
    const dump = async () =>
      JSON.stringify([
        await stores.readStore.find(
          USER_SCORES,
          {},
          {
            sort: [
              { field: 'user.id', direction: 'asc' },
              { field: 'orgId', direction: 'asc' },
            ],
          },
        ),
        await stores.readStore.find(USER_SCORE_ITEMS, {}, { sort: [{ field: 'item.id', direction: 'asc' }] }),
      ]);
    const live = await dump();
    await rebuildReadModels([userScoresProjection], stores.events, stores.readStore);
    expect(await dump()).toBe(live);
    await rebuildReadModels([userScoresProjection], stores.events, stores.readStore);
    expect(await dump()).toBe(live);
  });
});
