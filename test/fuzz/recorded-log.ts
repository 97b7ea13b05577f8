import { join } from 'node:path';
import Database from 'better-sqlite3';

/** The item-version event: one per item and version (libs/ingestion). */
const ITEM_SUBMITTED = 'ItemSubmitted';

/**
 * What each fuzz request left in the embedded log, read from the SQLite file read-only as the
 * server writes it. Every request sends a unique token as its X-Request-Id (the events' correlation
 * id) and in front of every item id it carries (so in the stream names of its items); an event
 * belongs to a request if either names it. The log is read incrementally, so the check after each
 * request costs only the events appended since the last one.
 */
export class RecordedLog {
  private readonly db: Database.Database;
  private readonly next;
  private position = 0;
  private readonly byToken = new Map<string, { events: number; versions: Map<string, number>; streams: Set<string>; types: Set<string> }>();
  private readonly anywhere: RegExp;
  private readonly exactly: RegExp;

  constructor(
    dataDir: string,
    /** Matches one request token. */
    token: RegExp,
  ) {
    this.anywhere = new RegExp(token.source, 'g');
    this.exactly = new RegExp(`^(?:${token.source})$`);
    this.db = new Database(join(dataDir, 'warden.db'), { readonly: true, fileMustExist: true });
    this.next = this.db.prepare<[number], { position: number; stream: string; type: string; correlationId: string | null }>(
      "SELECT position, stream, type, json_extract(metadata, '$.correlationId') AS correlationId FROM events WHERE position > ? ORDER BY position LIMIT 5000",
    );
  }

  /** Reads the events appended since the last call. */
  refresh(): void {
    for (;;) {
      const rows = this.next.all(this.position);
      for (const row of rows) {
        const tokens = new Set([...row.stream.matchAll(this.anywhere)].map((m) => m[0]));
        if (row.correlationId !== null && this.exactly.test(row.correlationId)) tokens.add(row.correlationId);
        for (const token of tokens) {
          const entry = this.byToken.get(token) ?? { events: 0, versions: new Map(), streams: new Set(), types: new Set() };
          entry.events++;
          entry.streams.add(row.stream);
          entry.types.add(row.type);
          if (row.type === ITEM_SUBMITTED && row.correlationId === token) entry.versions.set(row.stream, (entry.versions.get(row.stream) ?? 0) + 1);
          this.byToken.set(token, entry);
        }
        this.position = row.position;
      }
      if (rows.length < 5000) return;
    }
  }

  /** The streams holding events of this request (by correlation id or by an item id it sent). */
  streamsOf(token: string): string[] {
    return [...(this.byToken.get(token)?.streams ?? [])];
  }

  /** The types of the events this request left. */
  typesOf(token: string): string[] {
    return [...(this.byToken.get(token)?.types ?? [])];
  }

  /** Item streams this request appended more than one version to. */
  repeatedVersions(token: string): Array<[stream: string, versions: number]> {
    return [...(this.byToken.get(token)?.versions ?? [])].filter(([, n]) => n > 1);
  }

  /** Every request token found in the log. */
  tokens(): string[] {
    return [...this.byToken.keys()];
  }

  get headPosition(): number {
    return this.position;
  }

  close(): void {
    this.db.close();
  }
}
