import type { Connection } from 'mongoose';
import type { ReadStore } from './read-store.port.js';

/* Loaded on first use, so that the embedded profile never loads the MongoDB driver. */

export async function connectMongo(url: string, options?: { timeoutMs?: number }): Promise<Connection> {
  const adapter = await import('./mongo/mongo-read-store.js');
  return adapter.connectMongo(url, options);
}

export async function createMongoReadStore(connection: Connection): Promise<ReadStore> {
  const adapter = await import('./mongo/mongo-read-store.js');
  return new adapter.MongoReadStore(connection);
}
