import { join } from 'node:path';
import type { Connection } from 'mongoose';
import {
  connectKurrentDb,
  type EventStore,
  createMongoSubjectKeyStore,
  type LeaseStore,
  openSqlite,
  PersonalDataEventStore,
  PersonalDataPolicy,
  type SqliteDatabase,
  SqliteEventStore,
  SqliteLeaseStore,
  SQLITE_FILE_NAME,
  SqliteSnapshotStore,
  SqliteSubjectKeyStore,
  type SnapshotStore,
  type SubjectKeyStore,
  UpcastingEventStore,
} from '#warden/eventstore';
import { UpcasterRegistry } from '#warden/kernel';
import { Logger } from '@nestjs/common';
import { FALLBACK_AUTOCHECKPOINT_PAGES, WalCheckpointer } from '#warden/sqlite';
import { secureDataDir } from './data-directory.js';
import { ReadOnlyEventStore } from './read-only-event-store.js';
import {
  adoptReadModels,
  connectMongo,
  createMongoReadStore,
  dropReadModelsAheadOfLog,
  READ_MODELS_FILE_NAME,
  type ReadStore,
  type SharedTableMove,
  SqliteReadStore,
} from '#warden/readstore';
import type { IdempotencyStore, WardenConfig } from '#warden/platform';
import { MongoIdempotencyStore } from './idempotency/mongo-idempotency-store.js';
import { SqliteIdempotencyStore } from './idempotency/sqlite-idempotency-store.js';
import { type Keyring, loadKeyring } from './secrets/keyring.js';

/** The stores of one process, chosen by configuration (docs/operations.md, "Profiles"). */
export interface Storage {
  /** The log as the application sees it: personal fields sealed on write, opened on read. */
  readonly events: EventStore;
  /**
   * The log as stored: personal fields sealed, each event at the schema version it was written
   * in. Only for evidence about the log itself (the audit chain and its export), never for
   * domain reads.
   */
  readonly storedEvents: EventStore;
  readonly readStore: ReadStore;
  /** Long streams' snapshots, beside the log (in its file, or snapshot streams on KurrentDB). */
  readonly snapshots: SnapshotStore;
  readonly subjectKeys: SubjectKeyStore;
  readonly personalData: PersonalDataPolicy;
  /** Event schema versions: modules register their upcasters before the first read. */
  readonly upcasters: UpcasterRegistry;
  readonly mongo: Connection | undefined;
  /**
   * Reactor leases, in the embedded event log's file; undefined with KurrentDB, whose persistent
   * subscriptions share reactors among workers instead.
   */
  readonly leases: LeaseStore | undefined;
  /**
   * True when the log's positions count its events (the embedded log's sequence); KurrentDB's are
   * commit positions (bytes into its log), so a difference of two is not a number of events.
   */
  readonly sequentialPositions: boolean;
  /** Idempotency-Key records, where every process serving the API sees them: MongoDB, else the data file. */
  readonly idempotency: IdempotencyStore;
  readonly mongoConnectionToken: string | undefined;
  /** Seals configuration secrets. */
  readonly keyring: Keyring;
  /** Human-readable description for the start-up log line. */
  readonly description: string;
  /** Things the operator should know, logged at start-up. */
  readonly notices: readonly string[];
  close(): Promise<void>;
}

export async function openStorage(
  config: Pick<WardenConfig, 'dataDir' | 'eventStoreUrl' | 'mongoUrl' | 'sqliteSync' | 'secretKey' | 'secretKeyFile'> & {
    readonly readOnly?: boolean;
    readonly mongoConnectTimeoutMs?: number;
    /** The KurrentDB server's MaxAppendSize (WARDEN_KURRENTDB_MAX_APPEND_BYTES); its default when absent. */
    readonly kurrentDbMaxAppendBytes?: number;
    /**
     * The embedded files' WAL checkpoints on a thread of their own instead of inside commits
     * (WalCheckpointer): for a server, whose event loop serves requests; a CLI call writes little.
     */
    readonly backgroundCheckpoints?: boolean;
    /**
     * With backgroundCheckpoints: another opening of this process runs the checkpointer (the main
     * thread's, for the read-model thread's): these connections only keep the fallback bound.
     */
    readonly checkpointsElsewhere?: boolean;
    /**
     * The read models are read by projections alone (the read-model thread): reads of one turn of
     * the event loop share a read transaction (SqliteReadStore's readsShareTurn).
     */
    readonly projectionsOnly?: boolean;
  },
  personalData = new PersonalDataPolicy(),
  upcasters = new UpcasterRegistry(),
): Promise<Storage> {
  // The embedded parts (log, read models, generated key) live in the data directory.
  const dataDirNotices = config.eventStoreUrl === undefined || config.mongoUrl === undefined ? secureDataDir(config.dataDir) : [];
  const { keyring, notice } = loadKeyring(config, {
    dataDir: config.dataDir,
    production: config.eventStoreUrl !== undefined || config.mongoUrl !== undefined,
  });
  const sqliteConnections: SqliteDatabase[] = [];
  const sqlite = (sync: 'full' | 'normal', file = SQLITE_FILE_NAME) => {
    const db = openSqlite(join(config.dataDir, file), {
      synchronous: sync,
      ...(config.backgroundCheckpoints ? { walAutocheckpointPages: FALLBACK_AUTOCHECKPOINT_PAGES } : {}),
    });
    sqliteConnections.push(db);
    return db;
  };
  const closers: Array<() => Promise<void>> = [];
  try {
    // `full` is kept off the event loop: the connection commits at NORMAL and the log syncs its
    // WAL on the thread pool before it acknowledges an append or hands an event to a reader (WalSync).
    // Every store of the log's file shares its connection (snapshots, subject keys, leases,
    // Idempotency-Key records): SQLite empties a connection's page cache whenever another
    // connection has written the file, so connections taking turns (a subject's key inserted, then
    // its event appended) would each read their index pages again every time (docs/benchmarks.md,
    // "Single-item submissions under load", 2026-11-30 evening). Their writes are synchronous
    // turns of the event loop, so they never interleave inside a transaction.
    const logDb = config.eventStoreUrl ? undefined : sqlite('normal');
    const kurrent = logDb ? undefined : await connectKurrentDb(config.eventStoreUrl!);
    const opened: EventStore = kurrent ?? new SqliteEventStore(logDb!, { syncWal: config.sqliteSync === 'full' });
    // Under every other layer, so no path (the application's log, the stored form) can append.
    const rawEvents: EventStore = config.readOnly ? new ReadOnlyEventStore(opened) : opened;
    closers.push(() => rawEvents.close());
    // Like the leases, no sync of their own: a snapshot lost with the power only makes a read longer.
    const snapshots: SnapshotStore = kurrent ? kurrent.snapshots(config.kurrentDbMaxAppendBytes) : new SqliteSnapshotStore(logDb!);
    closers.push(() => snapshots.close());

    const mongo = config.mongoUrl
      ? await connectMongo(config.mongoUrl, config.mongoConnectTimeoutMs === undefined ? {} : { timeoutMs: config.mongoConnectTimeoutMs })
      : undefined;
    if (mongo) closers.push(() => mongo.close());
    // Read models can always be rebuilt from the log, and their checkpoint commits with them,
    // so their connection skips the per-commit fsync. Their file is their own (adoptReadModels).
    let adopted: SharedTableMove | undefined;
    let droppedAhead: number | undefined;
    const sqliteReadStore = async () => {
      const db = sqlite('normal', READ_MODELS_FILE_NAME);
      adopted = adoptReadModels(db, join(config.dataDir, SQLITE_FILE_NAME));
      if (logDb) droppedAhead = await dropReadModelsAheadOfLog(db, () => rawEvents.headPosition());
      return new SqliteReadStore(db, { readsShareTurn: config.projectionsOnly ?? false });
    };
    const readStore: ReadStore = mongo ? await createMongoReadStore(mongo) : await sqliteReadStore();
    // A key is inserted before the first event sealed with it, and every connection shares one
    // WAL: the log's synced commit makes the earlier key insert durable too, so no sync of its own.
    // With KurrentDB and no MongoDB the keys and the Idempotency-Key records still live in
    // warden.db, without a log there: one connection of their own, shared for the same reason,
    // and synced at every commit, since no synced log commit follows a key's insert there (an
    // event sealed with a key lost to a power cut could never be opened).
    const sideDb = logDb ?? (mongo ? undefined : sqlite('full'));
    const subjectKeys: SubjectKeyStore = mongo ? await createMongoSubjectKeyStore(mongo) : new SqliteSubjectKeyStore(sideDb!);
    // Leases are renewed every few seconds and mean nothing after a restart: no sync of their own.
    const leases: SqliteLeaseStore | undefined = logDb ? new SqliteLeaseStore(logDb) : undefined;
    // Like the leases, no sync of their own: the next synced commit of the log makes them durable
    // too, and a record lost with the machine's power only lets one retry run again.
    const idempotency: IdempotencyStore = mongo ? await MongoIdempotencyStore.open(mongo) : new SqliteIdempotencyStore(sideDb!);
    if (config.backgroundCheckpoints && !config.checkpointsElsewhere && sqliteConnections.length > 0) {
      const logger = new Logger('storage');
      const files = [...new Set(sqliteConnections.map((db) => db.name))];
      const checkpointer = new WalCheckpointer(files, (message) => logger.error({ msg: 'WAL checkpoint failed', error: message }));
      closers.push(() => checkpointer.close());
    }
    // Before their connections close: they finish the writes still queued behind another process's lock.
    closers.push(
      () => readStore.close(),
      () => subjectKeys.close(),
      async () => leases?.close(),
      () => idempotency.close(),
    );
    // @nestjs/mongoose's token, so modules can @InjectConnection() the same connection.
    const mongoConnectionToken = mongo ? (await import('@nestjs/mongoose')).getConnectionToken() : undefined;

    return {
      // Upcast after opening: upcasters see the personal fields a reader asked for in plaintext.
      events: new UpcastingEventStore(new PersonalDataEventStore(rawEvents, personalData, subjectKeys), upcasters),
      storedEvents: rawEvents,
      readStore,
      snapshots,
      subjectKeys,
      personalData,
      upcasters,
      mongo,
      leases,
      sequentialPositions: logDb !== undefined,
      idempotency,
      mongoConnectionToken,
      keyring,
      notices: [
        ...(notice ? [notice] : []),
        ...dataDirNotices,
        ...moveNotice(adopted, `Read models moved from ${SQLITE_FILE_NAME} to ${READ_MODELS_FILE_NAME}`),
        ...droppedNotice(droppedAhead),
        ...(readStore instanceof SqliteReadStore
          ? [
              ...moveNotice(
                readStore.moved,
                "Read models moved to a table per collection (an earlier release's data directory)",
                '; earlier releases can no longer open this data directory',
              ),
              ...moveNotice(readStore.rebuilt, "Read models' tables rebuilt in write order (an earlier release's data directory)"),
            ]
          : []),
      ],
      description: [
        config.eventStoreUrl ? 'events: KurrentDB' : `events: SQLite (${config.dataDir}/${SQLITE_FILE_NAME})`,
        mongo ? 'read models: MongoDB' : `read models: SQLite (${config.dataDir}/${READ_MODELS_FILE_NAME})`,
      ].join(', '),
      close: async () => {
        for (const close of closers.reverse()) await close().catch(() => undefined);
        for (const db of sqliteConnections) db.close();
      },
    };
  } catch (error) {
    for (const close of closers.reverse()) await close().catch(() => undefined);
    for (const db of sqliteConnections) db.close();
    throw error;
  }
}

/**
 * Said once, by the process that moved or rebuilt an earlier release's read models (operations.md,
 * "Upgrading": out of the log's file, into a table per collection, into tables in write order).
 */
function moveNotice(move: SharedTableMove | undefined, what: string, after = ''): string[] {
  return move ? [`${what}: ${move.documents} documents in ${move.ms} ms${after}`] : [];
}

/** Said by the process that dropped read models ahead of the log (operations.md, "Upgrading: the read models' own file"). */
function droppedNotice(ahead: number | undefined): string[] {
  if (ahead === undefined) return [];
  return [
    `Read models dropped, to be rebuilt from the log: a checkpoint (${ahead}) was past the log's last position (a ${SQLITE_FILE_NAME} restored without its ${READ_MODELS_FILE_NAME}, or the log's tail lost; operations.md, "Upgrading: the read models' own file")`,
  ];
}
