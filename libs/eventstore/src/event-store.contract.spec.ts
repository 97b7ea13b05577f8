import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DomainError, streamName } from '#warden/kernel';
import { anEvent } from '../../../test/support/events.js';
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

  // The server as docker-compose.yml configures it (KURRENTDB_MAX_APPEND_SIZE: 4 MiB).
  it("refuses an append over the server's MaxAppendSize as payload-too-large, appending nothing", async () => {
    const store = await connectKurrentDb(kurrentDbUrl!);
    try {
      const stream = streamName('contract_test', `too-large-${Date.now()}`);
      const error = await store.append(stream, [anEvent('Big', { blob: 'x'.repeat(4.5 * 1024 * 1024) })], 'no_stream').catch((e: unknown) => e);
      expect(error).toBeInstanceOf(DomainError);
      expect((error as DomainError).kind).toBe('payload-too-large');
      expect(await store.readStream(stream)).toEqual([]);
    } finally {
      await store.close();
    }
  });
});
