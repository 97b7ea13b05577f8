import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { Keyring } from '#warden/platform';
import type { CheckpointMove, Filter, FindOptions, Write } from '#warden/readstore';
import { sqliteStores } from '../../../../test/support/sqlite-stores.js';
import { CATALOG_PROJECTION } from '../projections/catalog.projection.js';
import { CATALOG_ENTITIES, type CatalogEntityDoc, entityDocId } from '../projections/catalog.read-model.js';
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
  function setUp() {
    stores = sqliteStores();
    const store = stores.readStore;
    let finds = 0;
    let checkpoint = 0;
    const counting = Object.assign(Object.create(store) as typeof store, {
      find: (collection: string, filter?: Filter, options?: FindOptions) => {
        finds++;
        return store.find(collection, filter, options);
      },
    });
    /** What the catalog projection does: documents and its checkpoint in one commit. */
    const project = async (writes: Write[]) => {
      const move: CheckpointMove = { projection: CATALOG_PROJECTION, from: checkpoint, to: checkpoint + 1 };
      await store.commit(writes, move);
      checkpoint = move.to;
    };
    const put = (doc: CatalogEntityDoc) => ({ op: 'put' as const, collection: CATALOG_ENTITIES, id: entityDocId(doc.orgId, doc.kind, doc.id), doc: doc as never, position: checkpoint + 1 });
    return { reader: new CatalogReader(counting, new Keyring([randomBytes(32)])), finds: () => finds, project, put, store };
  }

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
});
