import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { Keyring } from '#warden/storage';
import type { CheckpointMove, Filter, FindOptions, Write } from '#warden/readstore';
import { sqliteStores } from '../../../../test/support/sqlite-stores.js';
import { CATALOG_PROJECTION } from '../projections/catalog.projection.js';
import {
  CATALOG_ENTITIES,
  CATALOG_SETTINGS,
  CATALOG_VERSIONS,
  type CatalogEntityDoc,
  catalogScope,
  entityDocId,
  settingsDocId,
} from '../projections/catalog.read-model.js';
import { CatalogReader } from './catalog-reader.js';

const itemType = (id: string, fields: string[]): CatalogEntityDoc<'itemType'> =>
  ({
    orgId: 'acme',
    kind: 'itemType',
    id,
    archived: false,
    semanticVersion: 1,
    entity: { id, name: id, kind: 'CONTENT', fields: fields.map((name) => ({ name, type: 'STRING', required: false })), roles: {} },
  }) as unknown as CatalogEntityDoc<'itemType'>;

describe('CatalogReader', () => {
  let stores: ReturnType<typeof sqliteStores>;
  afterEach(async () => {
    await stores?.close();
  });

  /** The real SQLite read store, counting the document queries the reader makes. */
  function setUp(caughtUpAtStart = true) {
    stores = sqliteStores();
    const store = stores.readStore;
    let finds = 0;
    let gets = 0;
    let versionGets = 0;
    let checkpointReads = 0;
    let checkpoint = 0;
    /** The projection host's count of catalog batches this process committed (1: caught up once since start). */
    let localProgress = caughtUpAtStart ? 1 : 0;
    let catchUps = 0;
    const counting = Object.assign(Object.create(store) as typeof store, {
      find: (collection: string, filter?: Filter, options?: FindOptions) => {
        finds++;
        return store.find(collection, filter, options);
      },
      get: (collection: string, id: string) => {
        // Documents read; the versions' look-ups are counted apart.
        if (collection === CATALOG_VERSIONS) versionGets++;
        else gets++;
        return store.get(collection, id);
      },
      checkpoint: (projection: string) => {
        checkpointReads++;
        return store.checkpoint(projection);
      },
    });
    /** What the catalog projection does: documents and its checkpoint in one commit. */
    const project = async (writes: Write[]) => {
      const move: CheckpointMove = { projection: CATALOG_PROJECTION, from: checkpoint, to: checkpoint + 1 };
      await store.commit(writes, move);
      checkpoint = move.to;
    };
    const put = (doc: CatalogEntityDoc) => ({
      op: 'put' as const,
      collection: CATALOG_ENTITIES,
      id: entityDocId(doc.orgId, doc.kind, doc.id),
      doc: doc as never,
      position: checkpoint + 1,
    });
    const host = {
      localProgress: () => localProgress,
      catchUp: async () => {
        catchUps++;
        localProgress++;
      },
    };
    return {
      reader: new CatalogReader(counting, new Keyring([randomBytes(32)]), host),
      finds: () => finds,
      gets: () => gets,
      versionGets: () => versionGets,
      checkpointReads: () => checkpointReads,
      caughtUpHere: () => localProgress++,
      catchUps: () => catchUps,
      project,
      put,
      store,
    };
  }

  const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

  it('reads the checkpoint once per turn of the event loop, and afresh after a catalog commit of this process', async () => {
    const { reader, checkpointReads, caughtUpHere, project, put } = setUp();
    await project([put(itemType('post', ['text']))]);
    await nextTurn();
    const reads = (() => {
      const before = checkpointReads();
      return () => checkpointReads() - before;
    })();
    // These all resolve within one turn: the SQLite store answers without waiting.
    await Promise.all([reader.liveEntities('acme', 'itemType'), reader.liveEntities('acme', 'policy'), reader.everEntities('acme', 'itemType')]);
    await reader.liveEntities('acme', 'itemType');
    expect(reads()).toBe(1);

    // This process caught the catalog up in the meantime (after an apply, or for an unknown type): read again at once.
    caughtUpHere();
    await reader.liveEntities('acme', 'itemType');
    await reader.liveEntities('acme', 'itemType');
    expect(reads()).toBe(2);

    // Another process's commit is seen from the next turn on.
    await project([put(itemType('post', ['text', 'title']))]);
    await nextTurn();
    expect((await reader.liveEntities('acme', 'itemType'))[0]!.fields.map((f) => f.name)).toEqual(['text', 'title']);
    expect(reads()).toBe(3);
  });

  it('catches the catalog projection up before its first read in a process, and only then', async () => {
    const { reader, catchUps, project, put } = setUp(false);
    await project([put(itemType('post', ['text']))]);
    expect((await reader.liveEntities('acme', 'itemType')).map((t) => t.id)).toEqual(['post']);
    expect(catchUps()).toBe(1);
    await reader.liveEntities('acme', 'policy');
    await reader.everEntities('acme', 'itemType');
    expect(catchUps()).toBe(1);
  });

  it('answers archived entities only to everEntities, as they were last applied', async () => {
    const { reader, project, put } = setUp();
    await project([put(itemType('post', ['text'])), put({ ...itemType('comment', ['body']), archived: true })]);
    expect((await reader.liveEntities('acme', 'itemType')).map((t) => t.id)).toEqual(['post']);
    expect((await reader.everEntities('acme', 'itemType')).map((t) => [t.id, t.fields.map((f) => f.name)])).toEqual([
      ['comment', ['body']],
      ['post', ['text']],
    ]);
    expect((await reader.liveEntities('acme', 'itemType')).map((t) => t.id)).toEqual(['post']);
  });

  it('answers repeated reads from memory until the catalog projection commits again, then reads the new documents', async () => {
    const { reader, finds, project, put } = setUp();
    await project([put(itemType('post', ['text']))]);
    const first = await reader.liveEntities('acme', 'itemType');
    expect(first.map((t) => t.fields.map((f) => f.name))).toEqual([['text']]);
    for (let i = 0; i < 5; i++) await reader.liveEntities('acme', 'itemType');
    expect(finds()).toBe(1);

    await project([put(itemType('post', ['text', 'title'])), put(itemType('comment', ['body']))]);
    const after = await reader.liveEntities('acme', 'itemType');
    expect(after.map((t) => [t.id, t.fields.map((f) => f.name)])).toEqual([
      ['comment', ['body']],
      ['post', ['text', 'title']],
    ]);
    expect(finds()).toBe(2);
  });

  it('answers a settings section from memory until the catalog projection commits again', async () => {
    const { reader, gets, project } = setUp();
    const strikes = (windowDays: number) => ({
      op: 'put' as const,
      collection: CATALOG_SETTINGS,
      id: settingsDocId('acme', 'strikes'),
      doc: { value: { windowDays, thresholds: [] } } as never,
    });
    await project([strikes(30)]);
    for (let i = 0; i < 5; i++) expect((await reader.settings('acme', 'strikes'))?.windowDays).toBe(30);
    expect(await reader.settings('acme', 'appeals')).toBeUndefined();
    expect(await reader.settings('acme', 'appeals')).toBeUndefined();
    expect(gets()).toBe(2);
    const shared = await reader.settings('acme', 'strikes');
    expect(() => ((shared as { windowDays: number }).windowDays = 1)).toThrow(TypeError);

    await project([strikes(7)]);
    expect((await reader.settings('acme', 'strikes'))?.windowDays).toBe(7);
    expect(gets()).toBe(3);
  });

  it('keeps organizations and kinds apart, and hands out documents no caller can change', async () => {
    const { reader, project, put } = setUp();
    await project([put(itemType('post', ['text'])), put({ ...itemType('user', []), orgId: 'other' })]);
    expect((await reader.liveEntities('acme', 'itemType')).map((t) => t.id)).toEqual(['post']);
    expect((await reader.liveEntities('other', 'itemType')).map((t) => t.id)).toEqual(['user']);
    expect(await reader.liveEntities('acme', 'rule')).toEqual([]);
    const shared = await reader.liveEntities('acme', 'itemType');
    expect(() => (shared[0]!.fields as unknown as unknown[]).push('x')).toThrow(TypeError);
    shared.pop();
    expect((await reader.liveEntities('acme', 'itemType')).length).toBe(1);
  });

  it("keeps an answer across other organizations' and other kinds' writes, by the version the projection keeps of each", async () => {
    const { reader, finds, versionGets, project, put } = setUp();
    const version = (orgId: string, scope: `entity:${string}`, position: number) => ({
      op: 'put' as const,
      collection: CATALOG_VERSIONS,
      id: catalogScope(orgId, scope as `entity:itemType`),
      doc: { orgId, position } as never,
    });
    await project([put(itemType('post', ['text'])), version('acme', 'entity:itemType', 1)]);
    expect((await reader.liveEntities('acme', 'itemType')).map((t) => t.id)).toEqual(['post']);
    expect(finds()).toBe(1);
    // Another organization's item types, and this one's queues: the checkpoint moves, acme's item types do not.
    await project([put({ ...itemType('user', []), orgId: 'other' }), version('other', 'entity:itemType', 2)]);
    await project([version('acme', 'entity:queue', 3)]);
    for (let i = 0; i < 3; i++) expect((await reader.liveEntities('acme', 'itemType')).map((t) => t.id)).toEqual(['post']);
    expect(finds()).toBe(1);
    expect(versionGets()).toBe(2); // once at the first read, once after the checkpoint moved
    // acme's item types change: read again.
    await project([put(itemType('comment', ['body'])), version('acme', 'entity:itemType', 4)]);
    expect((await reader.liveEntities('acme', 'itemType')).map((t) => t.id)).toEqual(['comment', 'post']);
    expect(finds()).toBe(2);
    // A version past the checkpoint (on MongoDB: written before the batch's documents and its checkpoint) is not trusted.
    await project([version('acme', 'entity:itemType', 99)]);
    await reader.liveEntities('acme', 'itemType');
    await project([version('other', 'entity:queue', 6)]);
    await reader.liveEntities('acme', 'itemType');
    expect(finds()).toBe(4);
  });
});
