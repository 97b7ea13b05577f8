import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { Connection } from 'mongoose';
import { afterAll, describe } from 'vitest';
import { connectMongo } from '#warden/readstore';
import { loadConfig } from '#warden/platform';
import { idempotencyStoreContract } from './idempotency-store.contract.js';
import { MongoIdempotencyStore } from './mongo-idempotency-store.js';
import { SqliteIdempotencyStore } from './sqlite-idempotency-store.js';

// Each call opens another connection to one file, as another process on the data directory would.
const file = join(mkdtempSync(join(tmpdir(), 'warden-idempotency-')), 'warden.db');
const connections: Database.Database[] = [];
afterAll(() => {
  for (const db of connections) db.close();
});
idempotencyStoreContract('sqlite', async () => {
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('busy_timeout = 5000');
  connections.push(db);
  return new SqliteIdempotencyStore(db);
});

// Needs a running server, e.g. WARDEN_MONGO_URL='mongodb://127.0.0.1:27017/warden-test'.
const mongoUrl = loadConfig().mongoUrl;
describe.skipIf(!mongoUrl)(mongoUrl ? 'MongoDB' : 'WARDEN_MONGO_URL not set: MongoDB idempotency contract suite skipped', () => {
  const collection = `idempotency_contract_${process.pid}_${Date.now()}`;
  let connection: Connection | undefined;
  afterAll(async () => {
    await connection?.db?.dropCollection(collection).catch(() => undefined);
    await connection?.close();
  });
  idempotencyStoreContract('mongodb', async () => {
    connection ??= await connectMongo(mongoUrl!);
    return MongoIdempotencyStore.open(connection, collection);
  });
});
