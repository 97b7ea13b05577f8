import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { connectMongo, MongoReadStore, mongoSort } from './mongo/mongo-read-store.js';
import { readStoreContract } from './read-store.contract.js';
import { SqliteReadStore } from './sqlite/sqlite-read-store.js';

readStoreContract('sqlite', async () => new SqliteReadStore(new Database(':memory:')));

// Needs a running server, e.g. WARDEN_MONGO_URL='mongodb://127.0.0.1:27017/warden-test'.
const mongoUrl = process.env.WARDEN_MONGO_URL;
describe.skipIf(!mongoUrl)(mongoUrl ? 'MongoDB' : 'WARDEN_MONGO_URL not set: MongoDB contract suite skipped', () => {
  readStoreContract('mongodb', async () => new MongoReadStore(await connectMongo(mongoUrl!), { ownsConnection: true }));

  it('reads a sorted page through the index on its fields, which ends with _id, without sorting in memory', async () => {
    const connection = await connectMongo(mongoUrl!);
    const store = new MongoReadStore(connection, { ownsConnection: true });
    try {
      const c = `plan_${Date.now()}`;
      await store.commit(Array.from({ length: 50 }, (_, i) => ({ op: 'put' as const, collection: c, id: String(i), doc: { org: 'a', at: i } })));
      await store.ensureIndex(c, ['org', 'at']);
      const explained = (await connection.db!.command({
        explain: { find: `rm_${c}`, filter: { org: 'a' }, sort: mongoSort([{ field: 'at', direction: 'desc' }]), limit: 5 },
      })) as { queryPlanner: { winningPlan: unknown } };
      const plan = JSON.stringify(explained.queryPlanner.winningPlan);
      expect(plan).toContain('org_1_at_1__id_1');
      expect(plan).not.toContain('"SORT"');
    } finally {
      await store.close();
    }
  });
});
