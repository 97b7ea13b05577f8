import type { Connection } from 'mongoose';
import { describe, expect, it } from 'vitest';
import { KEY_WRITE_CONCERN, MongoSubjectKeyStore } from './mongo-subject-key-store.js';

/**
 * No MongoDB server runs here (subject-key-store.contract.spec.ts covers a real one when
 * WARDEN_MONGO_URL is set): the driver's collections are the seam, and what is checked is what
 * the store asks of the server, which a contract run against a standalone server cannot observe.
 */
function fakeConnection() {
  const asked: Array<{ call: string; options: unknown }> = [];
  const collection = {
    createIndex: async () => 'index',
    findOne: async () => null,
    insertOne: async (_doc: unknown, options: unknown) => void asked.push({ call: 'insertOne', options }),
    deleteMany: async (_filter: unknown, options: unknown) => {
      asked.push({ call: 'deleteMany', options });
      return { deletedCount: 1 };
    },
    updateOne: async (_filter: unknown, _update: unknown, options: unknown) => void asked.push({ call: 'updateOne', options }),
  };
  return { connection: { db: { collection: () => collection } } as unknown as Connection, asked };
}

describe('MongoSubjectKeyStore, durability of its writes', () => {
  it('creates and forgets keys with journaled, majority writes: a key is on disk before anything is sealed with it or recorded as erased', async () => {
    const { connection, asked } = fakeConnection();
    const store = new MongoSubjectKeyStore(connection);
    await store.keyFor('acme', 'user:u-1');
    await store.forget('acme', 'user:u-1');
    expect(KEY_WRITE_CONCERN).toEqual({ w: 'majority', journal: true });
    expect(asked.map((a) => a.call)).toEqual(['insertOne', 'deleteMany', 'updateOne']);
    for (const a of asked) expect(a.options).toMatchObject({ writeConcern: KEY_WRITE_CONCERN });
  });
});
