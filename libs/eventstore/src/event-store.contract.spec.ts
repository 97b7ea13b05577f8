import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe } from 'vitest';
import { eventStoreContract } from './event-store.contract.js';
import { connectKurrentDb } from './kurrentdb/kurrentdb-event-store.js';
import { openSqlite } from './sqlite/sqlite-database.js';
import { SqliteEventStore } from './sqlite/sqlite-event-store.js';

eventStoreContract('sqlite', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'warden-es-'));
  return new SqliteEventStore(openSqlite(join(dir, 'warden.db')));
});

// Needs a running server, e.g. WARDEN_EVENTSTORE_URL='kurrentdb://127.0.0.1:2113?tls=false'.
const kurrentDbUrl = process.env['WARDEN_EVENTSTORE_URL'];
describe.skipIf(!kurrentDbUrl)(kurrentDbUrl ? 'KurrentDB' : 'WARDEN_EVENTSTORE_URL not set: KurrentDB contract suite skipped', () => {
  eventStoreContract('kurrentdb', () => connectKurrentDb(kurrentDbUrl!), { groups: true });
});
