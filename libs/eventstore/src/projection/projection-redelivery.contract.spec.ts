import Database from 'better-sqlite3';
import { describe } from 'vitest';
import { connectMongo, SqliteReadStore } from '#warden/readstore';
import { projectionRedeliveryContract } from './projection-redelivery.contract.js';

projectionRedeliveryContract('sqlite', async () => new SqliteReadStore(new Database(':memory:')));

// Needs a running server, e.g. WARDEN_MONGO_URL='mongodb://127.0.0.1:27017/warden-test'.
const mongoUrl = process.env.WARDEN_MONGO_URL;
describe.skipIf(!mongoUrl)(mongoUrl ? 'MongoDB' : 'WARDEN_MONGO_URL not set: MongoDB redelivery contract skipped', () => {
  projectionRedeliveryContract('mongodb', async () => {
    const { createMongoReadStore } = await import('#warden/readstore');
    const connection = await connectMongo(mongoUrl!);
    const store = await createMongoReadStore(connection);
    return Object.assign(store, { close: () => connection.close() });
  });
});
