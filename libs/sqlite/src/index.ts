// The SQLite write path shared by the embedded stores (log, subject keys, read models, leases,
// idempotency records): writes that wait for another process's lock off the event loop.
export { SqliteGroupCommit, type SqliteGroupCommitOptions, type WriteJob } from './sqlite-group-commit.js';
export { WriteLock } from './write-lock.js';
export { emptyWal, WalNotTruncatedError } from './wal-truncation.js';
export { WalSync } from './wal-sync.js';
export { FALLBACK_AUTOCHECKPOINT_PAGES, WalCheckpointer } from './wal-checkpointer.js';
