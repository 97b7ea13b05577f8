import { afterEach, describe, expect, it } from 'vitest';
import { anEvent } from '../../../../test/support/events.js';
import { sealingEventStore, sqliteStores } from '../../../../test/support/sqlite-stores.js';
import { streamName, type JsonObject } from '#warden/kernel';
import type { EventStore, ReadAllOptions } from '../event-store.port.js';
import type { Projection } from '../projection/projection.js';
import { ProjectionRunner, rebuildReadModels } from '../projection/projection-runner.js';
import { PersonalDataEventStore } from './personal-data-event-store.js';
import { PersonalDataPolicy } from './personal-data-policy.js';
import { SqliteSubjectKeyStore } from './sqlite-subject-key-store.js';

const policy = () =>
  new PersonalDataPolicy().register('CommentPosted', {
    subject: (e) => e.data['authorId'] as string,
    fields: ['text', 'email'],
  });

const comments: Projection = {
  name: 'comments',
  collections: ['comments'],
  eventTypes: ['CommentPosted'],
  apply(event, ctx) {
    const d = event.data;
    ctx.put('comments', event.id, { authorId: d['authorId']!, text: d['text'] ?? null, email: d['email'] ?? null, postId: d['postId']! });
  },
};

const comment = (authorId: string, text: string): ReturnType<typeof anEvent> =>
  anEvent('CommentPosted', { authorId, postId: 'p1', text, email: `${authorId}@example.org` } as JsonObject);

describe('personal-data codec', () => {
  let stores: ReturnType<typeof sqliteStores>;
  afterEach(async () => {
    await stores?.close();
  });

  function codec() {
    stores = sqliteStores();
    return sealingEventStore(stores, policy());
  }

  it('never writes personal fields in plaintext, and reads them back while the key exists', async () => {
    const { store } = codec();
    await store.append(streamName('comment', 'acme', 'c1'), [comment('u1', 'my secret opinion')], 'no_stream');
    const raw = await stores.events.readAll();
    expect(JSON.stringify(raw)).not.toContain('my secret opinion');
    expect(JSON.stringify(raw)).not.toContain('u1@example.org');
    expect(raw[0]!.data['authorId']).toBe('u1');
    const [read] = await store.readAll();
    expect(read!.data).toEqual({ authorId: 'u1', postId: 'p1', text: 'my secret opinion', email: 'u1@example.org' });
    expect(read!.metadata.personalDataRedacted).toBeUndefined();
  });

  it('leaves events of types the policy never seals unparsed (readers of large records pay nothing)', async () => {
    const { store } = codec();
    await store.append(streamName('comment', 'acme', 'c1'), [comment('u1', 'hello')], 'no_stream');
    await store.append(streamName('audit', 'acme', 'a1'), [anEvent('AuditRecorded', { big: 'x'.repeat(5000) } as JsonObject)], 'no_stream');
    const parsed: string[] = [];
    const inner: EventStore = Object.assign(Object.create(stores.events) as EventStore, {
      readAll: async (options?: ReadAllOptions) =>
        (await stores.events.readAll(options)).map((e) => {
          const { id, type, streamName: stream, revision, position, metadata } = e;
          const counted = { id, type, streamName: stream, revision, position, metadata };
          return Object.defineProperty(counted, 'data', { get: () => (parsed.push(type), e.data), enumerable: true }) as typeof e;
        }),
    });
    const counting = new PersonalDataEventStore(inner, policy(), new SqliteSubjectKeyStore(stores.open()));
    const events = await counting.readAll();
    expect(new Set(parsed)).toEqual(new Set(['CommentPosted']));
    expect(events[0]!.data['text']).toBe('hello');
    expect(events[1]!.data['big']).toHaveLength(5000);
  });

  it('forgets a subject: after a replay none of its personal data appears, everything else does', async () => {
    const { store, keys } = codec();
    await store.append(streamName('comment', 'acme', 'c1'), [comment('u1', 'u1 wrote this')], 'no_stream');
    await store.append(streamName('comment', 'acme', 'c2'), [comment('u2', 'u2 wrote that')], 'no_stream');
    await store.append(streamName('comment', 'acme', 'c3'), [comment('u1', 'u1 again')], 'no_stream');
    await new ProjectionRunner(comments, store, stores.readStore).catchUp();
    expect(JSON.stringify(await stores.readStore.find('comments'))).toContain('u1 wrote this');

    expect(await keys.forget('acme', 'u1')).toBe(1);
    await rebuildReadModels([comments], store, stores.readStore);

    const everything = JSON.stringify([await store.readAll(), await stores.readStore.find('comments')]);
    for (const secret of ['u1 wrote this', 'u1 again', 'u1@example.org']) expect(everything).not.toContain(secret);
    expect(everything).toContain('u2 wrote that');
    expect(everything).toContain('u2@example.org');

    const events = await store.readAll();
    const forgotten = events.filter((e) => e.data['authorId'] === 'u1');
    expect(forgotten).toHaveLength(2);
    for (const e of forgotten) {
      expect(e.data).toEqual({ authorId: 'u1', postId: 'p1', text: null, email: null });
      expect(e.metadata.personalDataRedacted).toBe(true);
    }
    const docs = await stores.readStore.find('comments', { authorId: 'u1' });
    expect(docs).toEqual([
      { authorId: 'u1', text: null, email: null, postId: 'p1' },
      { authorId: 'u1', text: null, email: null, postId: 'p1' },
    ]);
  });

  it('seals with a new key after a subject was forgotten, without reviving old data', async () => {
    const { store, keys } = codec();
    await store.append(streamName('comment', 'acme', 'c1'), [comment('u1', 'before')], 'no_stream');
    await keys.forget('acme', 'u1');
    await store.append(streamName('comment', 'acme', 'c2'), [comment('u1', 'after')], 'no_stream');
    const texts = (await store.readAll()).map((e) => e.data['text']);
    expect(texts).toEqual([null, 'after']);
  });

  it('binds the ciphertext to its event: a sealed blob moved to another event does not open', async () => {
    const { store } = codec();
    await store.append(streamName('comment', 'acme', 'c1'), [comment('u1', 'original')], 'no_stream');
    const [raw] = await stores.events.readAll();
    const forged = { ...anEvent('CommentPosted', { ...raw!.data, authorId: 'u1' }) };
    await stores.events.append(streamName('comment', 'acme', 'c9'), [forged], 'no_stream');
    await expect(store.readStream(streamName('comment', 'acme', 'c9'))).rejects.toThrow();
  });

  describe("other people's parts of an event (a report's reason in a decision about someone else's item)", () => {
    const decisionPolicy = () =>
      new PersonalDataPolicy().register('DecisionMade', {
        subject: (e) => e.data['creator'] as string,
        fields: ['history'],
        parts: (e) =>
          Array.isArray(e.data['history'])
            ? (e.data['history'] as Array<{ reporter: string }>).map((r, i) => ({ path: ['history', i], subject: r.reporter, fields: ['reason'] }))
            : [],
      });
    const decision = (history: Array<{ reason: string | null; reporter: string }>) =>
      anEvent('DecisionMade', { creator: 'creator', history, type: 'REMOVE' } as unknown as JsonObject);

    function decisionCodec() {
      stores = sqliteStores();
      return sealingEventStore(stores, decisionPolicy());
    }

    it("seals each part under its own subject's key, and reads the event back as written, keys in order", async () => {
      const { store } = decisionCodec();
      const history = [
        { reason: 'reporter one wrote this', reporter: 'r1' },
        { reason: null, reporter: 'r2' },
        { reason: 'reporter three wrote that', reporter: 'r3' },
      ];
      await store.append(streamName('decision', 'acme', 'd1'), [decision(history)], 'no_stream');
      const raw = JSON.stringify(await stores.events.readAll());
      expect(raw).not.toContain('reporter one wrote this');
      const [read] = await store.readAll();
      expect(JSON.stringify(read!.data)).toBe(JSON.stringify({ creator: 'creator', type: 'REMOVE', history }));
      expect(read!.metadata.personalDataRedacted).toBeUndefined();
    });

    it('forgetting a reporter erases their reason only; forgetting the creator erases the rest; no key is made for a null reason', async () => {
      const { store, keys } = decisionCodec();
      await store.append(
        streamName('decision', 'acme', 'd1'),
        [
          decision([
            { reason: 'gone reporter text', reporter: 'r1' },
            { reason: 'kept reporter text', reporter: 'r2' },
            { reason: null, reporter: 'r3' },
          ]),
        ],
        'no_stream',
      );
      expect(await keys.forget('acme', 'r3')).toBe(0);
      expect(await keys.forget('acme', 'r1')).toBe(1);
      const [afterReporter] = await store.readAll();
      expect(afterReporter!.data['history']).toEqual([
        { reason: null, reporter: 'r1' },
        { reason: 'kept reporter text', reporter: 'r2' },
        { reason: null, reporter: 'r3' },
      ]);
      expect(afterReporter!.metadata.personalDataRedacted).toBe(true);
      await keys.forget('acme', 'creator');
      const [afterCreator] = await store.readAll();
      expect(afterCreator!.data['history']).toBeNull();
    });
  });
});
