import type { Connection } from 'mongoose';
import type { EventStore } from './event-store.port.js';
import type { SubjectKeyStore } from './personal-data/subject-key-store.port.js';
import type { SnapshotStore } from './snapshots/snapshot-store.port.js';

/*
 * The production adapters load their client libraries on first use: the embedded profile never
 * pays for them (together they add about 80 MiB of resident memory and start-up time).
 */

/** The log and, on the same connection, the aggregates' snapshots beside it. */
export async function connectKurrentDb(
  url: string,
  options?: { timeoutMs?: number },
): Promise<EventStore & { snapshots(maxAppendBytes?: number): SnapshotStore }> {
  const adapter = await import('./kurrentdb/kurrentdb-event-store.js');
  return adapter.connectKurrentDb(url, options);
}

export async function createMongoSubjectKeyStore(connection: Connection): Promise<SubjectKeyStore> {
  const adapter = await import('./personal-data/mongo-subject-key-store.js');
  return new adapter.MongoSubjectKeyStore(connection);
}
