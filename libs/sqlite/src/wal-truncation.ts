import type Database from 'better-sqlite3';

/** How long an emptying waits, at most, for readers of other connections to let the WAL go. */
const ATTEMPTS = 200;
const RETRY_MS = 50;

export class WalNotTruncatedError extends Error {
  constructor(what: string) {
    super(`${what}: the write-ahead log could not be emptied (other connections kept reading); retry`);
    this.name = 'WalNotTruncatedError';
  }
}

/**
 * Empties the file's write-ahead log (checkpoint TRUNCATE), so that earlier versions of the pages
 * just rewritten (a deleted key, a purged document) survive neither in the WAL nor in the file:
 * the checkpoint copies the new pages over the old. Readers of other connections can keep the WAL
 * in use for a moment: asked again every 50 ms for up to 10 s, then WalNotTruncatedError (`what`
 * names what was done, for the message; the writes themselves are committed by then).
 */
export async function emptyWal(db: Database.Database, what: string): Promise<void> {
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    if (truncateOnce(db)) return;
    await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
  }
  throw new WalNotTruncatedError(what);
}

/**
 * One try, without SQLite's busy handler: it would hold the event loop while it waits for the
 * readers of other connections, which this process may be the one to serve.
 */
function truncateOnce(db: Database.Database): boolean {
  const timeout = db.pragma('busy_timeout', { simple: true }) as number;
  db.pragma('busy_timeout = 0');
  try {
    const [result] = db.pragma('wal_checkpoint(TRUNCATE)') as Array<{ busy: number }>;
    return result?.busy === 0;
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED') return false;
    throw error;
  } finally {
    db.pragma(`busy_timeout = ${timeout}`);
  }
}
