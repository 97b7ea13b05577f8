import Database from 'better-sqlite3';
import { describe, it } from 'vitest';
import { connectMongo, MongoReadStore } from './mongo/mongo-read-store.js';
import { readStoreContract } from './read-store.contract.js';
import { SqliteReadStore } from './sqlite/sqlite-read-store.js';

readStoreContract('sqlite', async () => new SqliteReadStore(new Database(':memory:')));

const mongoUrl = process.env.WARDEN_MONGO_URL;
if (mongoUrl) {
  readStoreContract('mongodb', async () => new MongoReadStore(await connectMongo(mongoUrl), { ownsConnection: true }));
} else {
  describe('ReadStore contract: mongodb', () => {
    it.skip('WARDEN_MONGO_URL not set: MongoDB contract suite skipped', () => {});
  });
}
