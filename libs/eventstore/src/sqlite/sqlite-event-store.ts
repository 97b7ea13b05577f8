import { setTimeout as delay } from 'node:timers/promises';
import type { EventMetadata, JsonObject, NewEvent, RecordedEvent } from '#warden/kernel';
import {
  type AppendResult,
  type EventStore,
  type ExpectedRevision,
  type ReadAllOptions,
  type ReadStreamOptions,
  type SubscribeOptions,
  type Subscription,
  WrongExpectedRevisionError,
} from '../event-store.port.js';
import { dataVersion, type SqliteDatabase } from './sqlite-database.js';
import { SqliteGroupCommit, WalSync } from '#warden/sqlite';
import { LogNotifier } from './log-notifier.js';
import { LogTail } from './log-tail.js';

interface Row {
  position: number;
  stream: string;
  revision: number;
  id: string;
  type: string;
  data: string;
  metadata: string;
}

interface PendingAppend {
  readonly streamName: string;
  readonly events: readonly NewEvent[];
  readonly expected: ExpectedRevision;
}

const SCHEMA = `
CREATE TABLE IF NOT EXISTS events (
  position INTEGER PRIMARY KEY AUTOINCREMENT,
  stream   TEXT NOT NULL,
  revision INTEGER NOT NULL,
  id       TEXT NOT NULL UNIQUE,
  type     TEXT NOT NULL,
  data     TEXT NOT NULL,
  metadata TEXT NOT NULL,
  UNIQUE (stream, revision)
);`;

const BATCH = 500;
/**
 * After a read that found events, a subscription reads again no sooner than this: under a steady
 * stream of small commits (one per request) every subscriber would otherwise wake, query and
 * commit its own read model once per commit; waiting a moment lets a batch gather instead.
 */
const GATHER_MS = 5;
/**
 * Recently decoded events, by position: the tail's, and those of reads behind it (catch-ups, a
 * subscription catching up), which several readers tend to make over the same range in turn.
 */
const DECODED_CACHE = 4096;
/**
 * The shared tail (LogTail): at most this many events, and this much stored data (items may be up
 * to a megabyte each), read into it at most a batch at a time.
 */
const TAIL_LIMITS = { events: 8192, size: 32 * 1024 * 1024, refresh: BATCH };

export interface SqliteEventStoreOptions {
  /** How often to look for another process's appends when nothing woke the readers (ms). */
  readonly pollIntervalMs?: number;
  /**
   * For a connection at `synchronous = NORMAL`: sync the WAL off the event loop after each commit,
   * settle appends only then, and hand events to subscribers only once they are on disk (WalSync).
   * A connection at FULL syncs inside COMMIT and needs none. (Tests pass their own WalSync to see
   * what waits for it.)
   */
  readonly syncWal?: boolean | WalSync;
}

/**
 * The embedded event log. Appends arriving in the same tick are committed in one transaction
 * (one fsync) with a savepoint each, so a conflict in one append never undoes another: group
 * commit keeps throughput while every acknowledged append is durable.
 *
 * While another process holds the file's write lock, the group waits without blocking the event
 * loop, and appends arriving meanwhile join it (SqliteGroupCommit).
 */
export class SqliteEventStore implements EventStore {
  private readonly writes: SqliteGroupCommit;
  private closed = false;
  private readonly notifier: LogNotifier;
  private readonly stmt;
  private readonly decoded = new Map<number, RecordedEvent>();
  private readonly tail: LogTail;
  private readonly wal: WalSync | undefined;

  constructor(
    private readonly db: SqliteDatabase,
    options: SqliteEventStoreOptions = {},
  ) {
    db.exec(SCHEMA);
    // `+?` rather than `?` where a bound value could steer the plan (an equality on an index's first
    // column before an ORDER BY, a LIMIT): SQLite (built with STAT4, as better-sqlite3 is) otherwise
    // marks the statement to be prepared again whenever that parameter is bound, that is at every
    // execution, and better-sqlite3 then builds the statement's row factory anew (new Function):
    // 19 µs instead of 2.4 for lastRevision, once or twice per append (statement-reprepare.spec.ts).
    // The plans are the same: each statement has one sensible index.
    this.stmt = {
      lastRevision: db.prepare<[string], { revision: number }>('SELECT revision FROM events WHERE stream = +? ORDER BY revision DESC LIMIT 1'),
      findById: db.prepare<[string], { stream: string; revision: number; position: number }>('SELECT stream, revision, position FROM events WHERE id = ?'),
      insert: db.prepare('INSERT INTO events (stream, revision, id, type, data, metadata) VALUES (?, ?, ?, ?, ?, ?)'),
      readStream: db.prepare<[string, number, number], Row>('SELECT * FROM events WHERE stream = +? AND revision >= ? ORDER BY revision LIMIT +?'),
      readStreamBackwards: db.prepare<[string, number, number], Row>(
        'SELECT * FROM events WHERE stream = +? AND revision <= ? ORDER BY revision DESC LIMIT +?',
      ),
      // An untyped scan brings the payloads along: its readers (the audit chain, the item history)
      // look into every event, and a query per event for its data and another for its metadata
      // cost a twentieth of a worker's time in a burst, when those readers fell behind the shared
      // tail. Payloads are still parsed only when read (toRecorded).
      readAll: db.prepare<[number, number], Row>('SELECT * FROM events WHERE position > ? ORDER BY position LIMIT +?'),
      // A typed reader's scan: the database skips the other types without handing them over,
      // up to a head read just before (every position at or below it is already committed).
      // Payloads come along: a reader asks for the types it looks into, and one row read is
      // cheaper than a second query per event.
      readTyped: db.prepare<[number, number, string, number], Row>(
        `SELECT * FROM events
         WHERE position > ? AND position <= ? AND type IN (SELECT value FROM json_each(?))
         ORDER BY position LIMIT +?`,
      ),
      head: db.prepare<[], { head: number | null }>('SELECT max(position) AS head FROM events'),
      tail: db.prepare<[number, number], Row>('SELECT * FROM events WHERE position > ? ORDER BY position LIMIT +?'),
    };
    this.notifier = new LogNotifier(() => dataVersion(db), options.pollIntervalMs ?? 100, db.memory ? undefined : db.name);
    this.wal =
      options.syncWal instanceof WalSync ? options.syncWal : options.syncWal && !db.memory ? WalSync.forDatabase(db.name, () => this.head()) : undefined;
    const wal = this.wal;
    this.writes = new SqliteGroupCommit(db, {
      afterCommit: () => this.notifier.notify(),
      // The head right after this commit: every position at or below it is committed (a rolled-back
      // append's position may be taken again later, so not the positions the jobs saw).
      ...(wal ? { durable: () => wal.ensure(this.head()) } : {}),
    });
    this.tail = new LogTail(
      {
        readAfter: (after, max) => this.stmt.tail.all(after, max).map((r) => ({ event: this.decode(r), size: r.data.length + r.metadata.length })),
        generation: () => this.notifier.generation,
        head: () => this.head(),
      },
      TAIL_LIMITS,
    );
  }

  append(streamName: string, events: readonly NewEvent[], expected: ExpectedRevision): Promise<AppendResult> {
    if (this.closed) return Promise.reject(new Error('Event store is closed'));
    if (events.length === 0) return Promise.reject(new Error('Nothing to append'));
    return this.writes.run((undo) => this.appendInTransaction({ streamName, events, expected }, undo));
  }

  private appendInTransaction(p: PendingAppend, undo: () => void): AppendResult {
    // The common case costs only the inserts: a new stream needs no revision lookup, and the
    // unique constraints catch both a taken revision and a re-appended event id.
    const last = p.expected === 'no_stream' ? undefined : this.stmt.lastRevision.get(p.streamName)?.revision;
    if (p.expected !== 'no_stream') {
      const actual = last === undefined ? 'no_stream' : last;
      if (typeof p.expected === 'number' && actual !== p.expected) {
        return this.idempotentReplay(p) ?? this.conflict(p, actual);
      }
    }
    let revision = last ?? -1;
    let position = 0;
    try {
      for (const e of p.events) {
        revision += 1;
        const info = this.stmt.insert.run(p.streamName, revision, e.id, e.type, JSON.stringify(e.data), JSON.stringify(e.metadata));
        position = Number(info.lastInsertRowid);
      }
    } catch (error) {
      if ((error as { code?: string }).code !== 'SQLITE_CONSTRAINT_UNIQUE') throw error;
      // Undo this append's partial inserts before deciding what the clash means.
      undo();
      const replay = this.idempotentReplay(p);
      if (replay) return replay;
      const actual = this.stmt.lastRevision.get(p.streamName)?.revision;
      return this.conflict(p, actual === undefined ? 'no_stream' : actual);
    }
    return { nextRevision: revision, position };
  }

  private conflict(p: PendingAppend, actual: number | 'no_stream'): never {
    throw new WrongExpectedRevisionError(p.streamName, p.expected, actual);
  }

  /** Re-appending the same event ids to the same stream (a reactor re-run) is a no-op. */
  private idempotentReplay(p: PendingAppend): AppendResult | undefined {
    const found = p.events.map((e) => this.stmt.findById.get(e.id));
    if (found.every((f) => f === undefined)) return undefined;
    const last = found[found.length - 1];
    if (found.every((f) => f !== undefined && f.stream === p.streamName) && last) {
      return { nextRevision: last.revision, position: last.position };
    }
    throw new Error(`Event id already used elsewhere in the log (stream ${p.streamName})`);
  }

  async readStream(streamName: string, options: ReadStreamOptions = {}): Promise<RecordedEvent[]> {
    const rows = options.backwards
      ? this.stmt.readStreamBackwards.all(streamName, options.fromRevision ?? Number.MAX_SAFE_INTEGER, options.maxCount ?? -1)
      : this.stmt.readStream.all(streamName, options.fromRevision ?? 0, options.maxCount ?? -1);
    return rows.map(toRecorded);
  }

  /** One look-up in the (stream, revision) index: no row's payload is read. */
  async lastRevision(streamName: string): Promise<number | undefined> {
    return this.stmt.lastRevision.get(streamName)?.revision;
  }

  async readAll(options: ReadAllOptions = {}): Promise<RecordedEvent[]> {
    const { events, through } = this.scan(options.after ?? 0, options.eventTypes, options.maxCount ?? -1);
    await this.wal?.ensure(through);
    return events;
  }

  /**
   * Up to `max` events after `after` (-1: all), of the given types, and the position the read
   * accounts for: a typed scan that came back short has accounted for everything up to the head
   * read just before it (every position at or below it is committed).
   */
  private scan(after: number, eventTypes: readonly string[] | undefined, max: number): { events: RecordedEvent[]; through: number; complete: boolean } {
    const head = eventTypes === undefined ? 0 : this.head();
    const rows = eventTypes === undefined ? this.stmt.readAll.all(after, max) : this.stmt.readTyped.all(after, head, JSON.stringify(eventTypes), max);
    const complete = max < 0 || rows.length < max;
    const last = rows[rows.length - 1]?.position ?? after;
    return { events: rows.map((r) => this.decode(r)), through: eventTypes !== undefined && complete ? Math.max(head, after) : last, complete };
  }

  private head(): number {
    return this.stmt.head.get()?.head ?? 0;
  }

  /** Rows are immutable once written, so a decoded event can be handed to every reader. */
  private decode(row: Row): RecordedEvent {
    const hit = this.decoded.get(row.position);
    if (hit) return hit;
    const event = toRecorded(row);
    if (this.decoded.size >= DECODED_CACHE) this.decoded.delete(this.decoded.keys().next().value!);
    this.decoded.set(row.position, event);
    return event;
  }

  async headPosition(): Promise<number> {
    return this.head();
  }

  subscribeToAll(options: SubscribeOptions): Subscription {
    let stopped = false;
    let position = options.after ?? 0;
    const typeSet = options.eventTypes ? new Set(options.eventTypes) : undefined;
    const loop = (async () => {
      let caughtUp = false;
      let foundAt = Number.NEGATIVE_INFINITY;
      // A store closed under a running subscription ends it (its waits would resolve at once, forever).
      while (!stopped && !this.closed) {
        const waiter = this.notifier.nextChange();
        // From the shared tail; a subscription behind it (catching up) reads the log itself.
        const { events, through, complete } = this.tail.read(position, typeSet, BATCH) ?? this.scan(position, options.eventTypes, BATCH);
        if (events.length > 0) foundAt = performance.now();
        if (through > position) {
          // Readers act (project, deliver, decide) only on what a power loss cannot take back.
          await this.wal?.ensure(through);
          if (stopped) return;
          await options.onEvents(events, through);
          position = through;
        }
        if (complete) {
          if (!caughtUp) {
            caughtUp = true;
            options.onCaughtUp?.();
          }
          // Plain waits: a race with a promise that settles only at close would keep every race's
          // reaction until then (memory growing with every wait of every subscription). The
          // waiter resolves at close too (LogNotifier.close), and the gather is 5 ms at most.
          await waiter;
          const gather = foundAt + GATHER_MS - performance.now();
          if (gather > 0 && !stopped) await delay(gather);
        }
      }
    })().catch((error) => {
      if (!stopped) options.onError?.(error);
    });
    return {
      stop: async () => {
        stopped = true;
        this.notifier.wakeAll();
        await loop;
      },
    };
  }

  async ping(): Promise<void> {
    this.db.prepare('SELECT 1').get();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.writes.close();
    this.notifier.close();
    await this.wal?.close();
  }
}

/**
 * Data and metadata are parsed on first access: most subscribers skip most event types and never
 * look inside them.
 */
function toRecorded(row: Row): RecordedEvent {
  let data: JsonObject | undefined;
  let metadata: EventMetadata | undefined;
  return {
    id: row.id,
    type: row.type,
    streamName: row.stream,
    revision: row.revision,
    position: row.position,
    get data() {
      return (data ??= JSON.parse(row.data) as JsonObject);
    },
    get metadata() {
      return (metadata ??= JSON.parse(row.metadata) as EventMetadata);
    },
  };
}
