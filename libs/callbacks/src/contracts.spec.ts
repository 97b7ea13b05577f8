import { afterEach, describe, expect, it } from 'vitest';
import { anEvent } from '../../../test/support/events.js';
import { sealingEventStore, sqliteStores } from '../../../test/support/sqlite-stores.js';
import { PersonalDataPolicy } from '#warden/eventstore';
import { type JsonObject, streamName } from '#warden/kernel';
import { CALLBACKS_PERSONAL_DATA } from './contracts.js';

const EMAIL = 'moderator-7c1e@acme.example';
const reporter = { kind: 'user', id: 'rep-1', typeId: 'user' };

/** A decision's callback about `creator`'s post, by the console user `mod-1`, with one report. */
const decision = () =>
  anEvent('ActionCallbackRequested', {
    deliveryId: 'd1',
    item: { id: 'p1', typeId: 'post', typeName: 'Post' },
    action: { id: 'remove' },
    custom: {},
    creator: { id: 'creator', typeId: 'user' },
    trigger: 'decision',
    environment: 'MANUAL',
    policies: [],
    rules: [],
    actor: { userId: 'mod-1', email: EMAIL },
    actorNote: null,
    parameters: {},
    decisionReason: 'spam',
    reportHistory: [{ reason: 'the reporter wrote this', reporter }],
    subject: 'user:creator',
  } as unknown as JsonObject);

/** Its delivery: the body as sent (keys in order), the moderator named outside it. */
const body = {
  item: { id: 'p1', typeId: 'post', typeName: 'Post' },
  action: { id: 'remove' },
  policies: [],
  rules: [],
  custom: { reason: 'spam', reportHistory: [{ reason: 'the reporter wrote this', reporter }] },
  actorEmail: EMAIL,
  creator: { id: 'creator', typeId: 'user' },
  decisionReason: 'spam',
};
const delivery = () =>
  anEvent('CallbackDeliveryRequested', {
    deliveryId: 'd1',
    kind: 'action',
    trigger: 'decision',
    actionId: 'remove',
    appealId: null,
    item: { id: 'p1', typeId: 'post' },
    destination: null,
    body,
    subject: 'user:creator',
    actorUserId: 'mod-1',
    requestedAt: '2026-03-01T10:00:00.000Z',
    nextAttemptAt: '2026-03-01T10:00:00.000Z',
  } as unknown as JsonObject);

describe("callbacks' personal data: a decision's moderator email", () => {
  let stores: ReturnType<typeof sqliteStores>;
  afterEach(async () => {
    await stores?.close();
  });

  function codec() {
    stores = sqliteStores();
    return sealingEventStore(stores, new PersonalDataPolicy().registerAll(CALLBACKS_PERSONAL_DATA));
  }

  it("is sealed under the console user's key in the callback and its delivery, whose body reads back as sent", async () => {
    const { store } = codec();
    await store.append(streamName('callback', 'acme', 'd1'), [decision(), delivery()], 'no_stream');
    expect(JSON.stringify(await stores.events.readAll())).not.toContain(EMAIL);
    const [callback, requested] = await store.readAll();
    expect(callback!.data['actor']).toEqual({ userId: 'mod-1', email: EMAIL });
    expect(JSON.stringify(requested!.data['body'])).toBe(JSON.stringify(body));
  });

  it("reads as null once the console user's key is forgotten, the creator's and the reporter's data kept", async () => {
    const { store, keys } = codec();
    await store.append(streamName('callback', 'acme', 'd1'), [decision(), delivery()], 'no_stream');
    expect(await keys.forget('acme', 'mod-1')).toBe(1);
    const [callback, requested] = await store.readAll();
    expect(JSON.stringify([callback, requested])).not.toContain(EMAIL);
    expect(callback!.data).toMatchObject({ actor: { userId: 'mod-1', email: null }, reportHistory: [{ reason: 'the reporter wrote this' }] });
    expect(callback!.metadata.personalDataRedacted).toBe(true);
    expect(JSON.stringify(requested!.data['body'])).toBe(JSON.stringify({ ...body, actorEmail: null }));
  });
});

describe("callbacks' personal data: a bulk action's manager email (an executed action's callback)", () => {
  let stores: ReturnType<typeof sqliteStores>;
  afterEach(async () => {
    await stores?.close();
  });

  /** A bulk action's execution by the console user `lead-1`: no subject, the manager and reason named. */
  const execution = () =>
    anEvent('ActionCallbackRequested', {
      deliveryId: 'd2',
      item: { id: 'p1', typeId: 'post', typeName: 'Post' },
      action: { id: 'remove' },
      policies: [],
      rules: [],
      custom: {},
      creator: { id: 'creator', typeId: 'user' },
      environment: 'MANUAL',
      trigger: 'post-actions',
      actor: { userId: 'lead-1', email: EMAIL },
      decisionReason: 'spam campaign',
    } as unknown as JsonObject);
  const executionBody = {
    item: { id: 'p1', typeId: 'post', typeName: 'Post' },
    action: { id: 'remove' },
    policies: [],
    rules: [],
    custom: {},
    actorEmail: EMAIL,
  };
  const executionDelivery = () =>
    anEvent('CallbackDeliveryRequested', {
      deliveryId: 'd2',
      kind: 'action',
      trigger: 'post-actions',
      actionId: 'remove',
      appealId: null,
      item: { id: 'p1', typeId: 'post' },
      destination: null,
      body: executionBody,
      subject: null,
      actorUserId: 'lead-1',
      requestedAt: '2026-03-01T10:00:00.000Z',
      nextAttemptAt: '2026-03-01T10:00:00.000Z',
    } as unknown as JsonObject);

  it("is sealed under the console user's key without a subject, and reads as null once their key is forgotten", async () => {
    stores = sqliteStores();
    const { store, keys } = sealingEventStore(stores, new PersonalDataPolicy().registerAll(CALLBACKS_PERSONAL_DATA));
    await store.append(streamName('callback', 'acme', 'd2'), [execution(), executionDelivery()], 'no_stream');
    expect(JSON.stringify(await stores.events.readAll())).not.toContain(EMAIL);
    const [callback, requested] = await store.readAll();
    expect(callback!.data['actor']).toEqual({ userId: 'lead-1', email: EMAIL });
    expect(JSON.stringify(requested!.data['body'])).toBe(JSON.stringify(executionBody));
    expect(await keys.forget('acme', 'lead-1')).toBe(1);
    const [erased, erasedDelivery] = await store.readAll();
    expect(JSON.stringify([erased, erasedDelivery])).not.toContain(EMAIL);
    expect(erased!.data).toMatchObject({ actor: { userId: 'lead-1', email: null }, decisionReason: 'spam campaign' });
    expect(JSON.stringify(erasedDelivery!.data['body'])).toBe(JSON.stringify({ ...executionBody, actorEmail: null }));
  });
});
