import type { Connection } from 'mongoose';
import { afterAll, describe } from 'vitest';
import { connectMongo } from '#warden/readstore';
import { loadConfig, MemoryRateLimitStore } from '#warden/platform';
import { MongoRateLimitStore } from './mongo-rate-limit-store.js';
import { rateLimitStoreContract } from './rate-limit-store.contract.js';

rateLimitStoreContract('memory', async (limit) => new MemoryRateLimitStore(limit));

// Needs a running server, e.g. WARDEN_MONGO_URL='mongodb://127.0.0.1:27017/warden-test'.
const mongoUrl = loadConfig().mongoUrl;
describe.skipIf(!mongoUrl)(mongoUrl ? 'MongoDB' : 'WARDEN_MONGO_URL not set: MongoDB rate-limit contract suite skipped', () => {
  const collection = `rate_limits_contract_${process.pid}_${Date.now()}`;
  let connection: Connection | undefined;
  afterAll(async () => {
    await connection?.db?.dropCollection(collection).catch(() => undefined);
    await connection?.close();
  });
  rateLimitStoreContract('mongodb', async (limit) => {
    connection ??= await connectMongo(mongoUrl!);
    return MongoRateLimitStore.open(connection, limit, collection);
  });
});
