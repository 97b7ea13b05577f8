import Database from 'better-sqlite3';
import { describe } from 'vitest';
import { connectMongo, MongoReadStore } from './mongo/mongo-read-store.js';
import { readStoreContract } from './read-store.contract.js';
import { SqliteReadStore } from './sqlite/sqlite-read-store.js';

readStoreContract('sqlite', async () => new SqliteReadStore(new Database(':memory:')));

// Needs a running server, e.g. WARDEN_MONGO_URL='mongodb://127.0.0.1:27017/warden-test'.
const mongoUrl = process.env.WARDEN_MONGO_URL;
describe.skipIf(!mongoUrl)(mongoUrl ? 'MongoDB' : 'WARDEN_MONGO_URL not set: MongoDB contract suite skipped', () => {
  readStoreContract('mongodb', async () => new MongoReadStore(await connectMongo(mongoUrl!), { ownsConnection: true }));
});
