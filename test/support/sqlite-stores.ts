import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSqlite, PersonalDataEventStore, type PersonalDataPolicy, SqliteEventStore, type SqliteDatabase, SqliteSubjectKeyStore } from '#warden/eventstore';
import { SqliteReadStore } from '#warden/readstore';

/** A fresh embedded data file with an event store and a read store on separate connections. */
export function sqliteStores(file = join(mkdtempSync(join(tmpdir(), 'warden-unit-')), 'warden.db')) {
  const connections: SqliteDatabase[] = [];
  const open = () => {
    const db = openSqlite(file, { synchronous: 'normal' });
    connections.push(db);
    return db;
  };
  const events = new SqliteEventStore(open());
  const readStore = new SqliteReadStore(open());
  return {
    file,
    events,
    readStore,
    open,
    close: async () => {
      await events.close();
      for (const db of connections) db.close();
    },
  };
}

/** The stores' log behind the personal-data codec, its subject keys in the same file: what a server appends through. */
export function sealingEventStore(stores: ReturnType<typeof sqliteStores>, policy: PersonalDataPolicy) {
  const keys = new SqliteSubjectKeyStore(stores.open());
  return { store: new PersonalDataEventStore(stores.events, policy, keys), keys };
}
