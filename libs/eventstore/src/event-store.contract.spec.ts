import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventStoreContract } from './event-store.contract.js';
import { openSqlite } from './sqlite/sqlite-database.js';
import { SqliteEventStore } from './sqlite/sqlite-event-store.js';

eventStoreContract('sqlite', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'warden-es-'));
  return new SqliteEventStore(openSqlite(join(dir, 'warden.db')));
});
