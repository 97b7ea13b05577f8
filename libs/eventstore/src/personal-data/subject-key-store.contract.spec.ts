import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import mongoose from 'mongoose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSqlite, type SqliteDatabase } from '../sqlite/sqlite-database.js';
import { MongoSubjectKeyStore } from './mongo-subject-key-store.js';
import { SqliteSubjectKeyStore } from './sqlite-subject-key-store.js';
import type { SubjectKeyStore } from './subject-key-store.port.js';

/** One key by id through findMany; undefined once forgotten. */
async function findOne(store: SubjectKeyStore, keyId: string): Promise<Buffer | undefined> {
  return (await store.findMany([keyId])).get(keyId);
}

interface Opened {
  /** Two stores over the same backend, as two processes would hold. */
  readonly stores: readonly [SubjectKeyStore, SubjectKeyStore];
  close(): Promise<void>;
}

/** The behaviour every SubjectKeyStore adapter must show; org ids are unique per run. */
function subjectKeyStoreContract(adapter: string, open: () => Promise<Opened>): void {
  describe(`SubjectKeyStore contract: ${adapter}`, () => {
    let opened: Opened;
    let store: SubjectKeyStore;
    let other: SubjectKeyStore;
    const org = `org_${randomUUID()}`;

    beforeAll(async () => {
      opened = await open();
      [store, other] = opened.stores;
    });
    afterAll(async () => {
      for (const subject of ['alice', 'bob', 'carol', 'dave', 'erin', 'frank']) await store?.forget(org, subject);
      await store?.forget(`${org}_2`, 'alice');
      await opened?.close();
    });

    it('creates a 32-byte key on first use and returns the same key afterwards', async () => {
      const first = await store.keyFor(org, 'alice');
      expect(Buffer.isBuffer(first.key)).toBe(true);
      expect(first.key).toHaveLength(32);
      const again = await store.keyFor(org, 'alice');
      expect(again.keyId).toBe(first.keyId);
      expect(again.key.equals(first.key)).toBe(true);
      const seenElsewhere = await other.keyFor(org, 'alice');
      expect(seenElsewhere.keyId).toBe(first.keyId);
    });

    it('keeps one key per (org, subject)', async () => {
      const alice = await store.keyFor(org, 'alice');
      const bob = await store.keyFor(org, 'bob');
      const aliceElsewhere = await store.keyFor(`${org}_2`, 'alice');
      expect(new Set([alice.keyId, bob.keyId, aliceElsewhere.keyId]).size).toBe(3);
      expect(alice.key.equals(bob.key)).toBe(false);
    });

    it('agrees on one key when first uses race', async () => {
      const keys = await Promise.all([store.keyFor(org, 'carol'), other.keyFor(org, 'carol'), store.keyFor(org, 'carol'), other.keyFor(org, 'carol')]);
      expect(new Set(keys.map((k) => k.keyId)).size).toBe(1);
      expect(keys.every((k) => k.key.equals(keys[0]!.key))).toBe(true);
    });

    it('finds a key by id as a Buffer, and nothing for an unknown id', async () => {
      const dave = await store.keyFor(org, 'dave');
      const found = await findOne(other, dave.keyId);
      expect(Buffer.isBuffer(found)).toBe(true);
      expect(found!.equals(dave.key)).toBe(true);
      expect(await findOne(store, randomUUID())).toBeUndefined();
    });

    it('finds several keys in one look-up, leaving out unknown ids', async () => {
      const erin = await store.keyFor(org, 'erin');
      const frank = await store.keyFor(org, 'frank');
      const found = await other.findMany([erin.keyId, randomUUID(), frank.keyId, erin.keyId]);
      expect([...found.keys()].sort()).toEqual([erin.keyId, frank.keyId].sort());
      expect(found.get(erin.keyId)!.equals(erin.key)).toBe(true);
      expect(found.get(frank.keyId)!.equals(frank.key)).toBe(true);
      expect((await store.findMany([])).size).toBe(0);
      await store.forget(org, 'frank');
      expect([...(await other.findMany([erin.keyId, frank.keyId])).keys()]).toEqual([erin.keyId]);
    });

    it('counts the erasures that forgot a key, as every process of the deployment sees them', async () => {
      const before = await other.erasures();
      await store.keyFor(org, 'erin');
      expect(await store.forget(org, 'erin')).toBe(1);
      expect(await other.erasures()).toBe(before + 1);
      expect(await store.erasures()).toBe(before + 1);
      // Forgetting nothing is no erasure: states read before it are still whole.
      expect(await store.forget(org, 'erin')).toBe(0);
      expect(await other.erasures()).toBe(before + 1);
    });

    it('forgets every key of a subject, for good', async () => {
      const dave = await store.keyFor(org, 'dave');
      expect(await store.forget(org, 'dave')).toBe(1);
      expect(await findOne(store, dave.keyId)).toBeUndefined();
      expect(await findOne(other, dave.keyId)).toBeUndefined();
      expect(await store.forget(org, 'dave')).toBe(0);
      expect(await store.forget(org, 'nobody')).toBe(0);
      const fresh = await store.keyFor(org, 'dave');
      expect(fresh.keyId).not.toBe(dave.keyId);
      expect(fresh.key.equals(dave.key)).toBe(false);
      expect(await findOne(store, (await store.keyFor(org, 'alice')).keyId)).toBeDefined();
    });
  });
}

subjectKeyStoreContract('sqlite', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'warden-keys-'));
  const dbs: SqliteDatabase[] = [openSqlite(join(dir, 'warden.db')), openSqlite(join(dir, 'warden.db'))];
  return {
    stores: [new SqliteSubjectKeyStore(dbs[0]!), new SqliteSubjectKeyStore(dbs[1]!)],
    close: async () => {
      for (const db of dbs) db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
});

// Needs a running server, e.g. WARDEN_MONGO_URL='mongodb://127.0.0.1:27017/warden-test'.
const mongoUrl = process.env.WARDEN_MONGO_URL;
describe.skipIf(!mongoUrl)(mongoUrl ? 'MongoDB' : 'WARDEN_MONGO_URL not set: MongoDB contract suite skipped', () => {
  subjectKeyStoreContract('mongodb', async () => {
    const connect = () => mongoose.createConnection(mongoUrl!, { serverSelectionTimeoutMS: 8000 }).asPromise();
    const connections = [await connect(), await connect()];
    return {
      stores: [new MongoSubjectKeyStore(connections[0]!, { ownsConnection: true }), new MongoSubjectKeyStore(connections[1]!, { ownsConnection: true })],
      close: async () => {
        for (const c of connections) await c.close();
      },
    };
  });
});
