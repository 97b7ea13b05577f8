import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { Keyring, type ProjectionHost } from '#warden/storage';
import { sqliteStores } from '../../../../../test/support/sqlite-stores.js';
import { CATALOG_PROJECTION } from '../../projections/catalog.projection.js';
import { CATALOG_ENTITIES, type CatalogEntityDoc, entityDocId } from '../../projections/catalog.read-model.js';
import { CatalogReader } from '../catalog-reader.js';
import { GetLiveEntitiesHandler } from './get-live-entities.handler.js';
import { GetLiveEntitiesQuery } from './get-live-entities.query.js';

const policy = (id: string) =>
  ({ orgId: 'acme', kind: 'policy', id, archived: false, semanticVersion: 1, entity: { id, name: id } }) as unknown as CatalogEntityDoc<'policy'>;

describe('GetLiveEntitiesHandler', () => {
  let stores: ReturnType<typeof sqliteStores>;
  afterEach(async () => {
    await stores?.close();
  });

  /** The real reader on SQLite; the projection host's catch-up projects what an apply moments ago recorded. */
  function setUp() {
    stores = sqliteStores();
    let checkpoint = 0;
    const project = (id: string) => {
      checkpoint++;
      return stores.readStore.commit(
        [{ op: 'put', collection: CATALOG_ENTITIES, id: entityDocId('acme', 'policy', id), doc: policy(id) as never, position: checkpoint }],
        { projection: CATALOG_PROJECTION, from: checkpoint - 1, to: checkpoint },
      );
    };
    const pending: string[] = [];
    let catchUps = 0;
    const projections = {
      catchUp: async () => {
        catchUps++;
        for (const id of pending.splice(0)) await project(id);
      },
    } as unknown as ProjectionHost;
    const handler = new GetLiveEntitiesHandler(new CatalogReader(stores.readStore, new Keyring([randomBytes(32)])), projections);
    return { handler, project, pending, catchUps: () => catchUps };
  }

  it('catches the catalog up only when an expected id is missing, and answers what it then has', async () => {
    const { handler, project, pending, catchUps } = setUp();
    await project('spam');
    const ids = async (expected: string[]) => (await handler.execute(new GetLiveEntitiesQuery('acme', 'policy', expected))).map((p) => p.id);
    expect(await ids(['spam'])).toEqual(['spam']);
    expect(await ids([])).toEqual(['spam']);
    expect(catchUps()).toBe(0);
    pending.push('violence');
    expect(await ids(['violence'])).toEqual(['spam', 'violence']);
    expect(catchUps()).toBe(1);
    // Still unknown after catching up: the answer lacks it (the caller reports it).
    expect(await ids(['nope'])).toEqual(['spam', 'violence']);
    expect(catchUps()).toBe(2);
  });
});
