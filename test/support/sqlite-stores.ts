import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSqlite, SqliteEventStore, type SqliteDatabase } from '#warden/eventstore';
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
