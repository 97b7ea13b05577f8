import { chmodSync, lstatSync, mkdirSync, readdirSync, type Stats } from 'node:fs';
import { join } from 'node:path';

/** Only the user Warden runs as may list the data directory... */
const DATA_DIR_MODE = 0o700;
/** ...or read and write what it holds: the log, the read models, the personal-data keys, secret.key. */
const DATA_FILE_MODE = 0o600;

/** The files Warden keeps in its data directory; anything else there is not Warden's to change. */
const WARDEN_FILE = /^((warden|read-models)\.db(-wal|-shm|-journal)?|secret\.key)$/;

/**
 * Creates the embedded profile's data directory private to the user Warden runs as, and tightens
 * one created by an earlier release (which left it and `warden.db` readable by every user): the
 * directory becomes 0700 and Warden's own files in it 0600. Files SQLite creates later
 * (`warden.db-wal`, `-shm`) take the database file's mode. Only what this user owns is changed
 * (a volume mounted for a group, owned by another user, stays as its owner set it, and Warden
 * still starts); other files and symbolic links are left alone. Returns a notice for each thing
 * left readable by others, for the caller to log.
 */
export function secureDataDir(dataDir: string): string[] {
  mkdirSync(dataDir, { recursive: true, mode: DATA_DIR_MODE });
  const notices: string[] = [];
  const tighten = (path: string, stats: Stats, mode: number) => {
    if ((stats.mode & 0o777) === mode) return;
    if (ownedByThisUser(stats)) chmodIfPresent(path, mode);
    else if ((stats.mode & 0o077) !== 0)
      notices.push(`${path} is owned by another user and readable by others (mode ${(stats.mode & 0o777).toString(8)}); Warden leaves it as it is`);
  };
  tighten(dataDir, lstatSync(dataDir), DATA_DIR_MODE);
  for (const name of readdirSync(dataDir)) {
    if (!WARDEN_FILE.test(name)) continue;
    const path = join(dataDir, name);
    // Another process's SQLite connection creates and removes its -wal and -shm files as it opens
    // and closes: one listed a moment ago may be gone now (a CLI call beside a running server).
    const stats = lstatSync(path, { throwIfNoEntry: false });
    if (stats?.isFile()) tighten(path, stats, DATA_FILE_MODE);
  }
  return notices;
}

/** chmod, unless the file is gone meanwhile (see secureDataDir). */
function chmodIfPresent(path: string, mode: number): void {
  try {
    chmodSync(path, mode);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}

/** Where there are no user ids (Windows), everything counts as this user's. */
const ownedByThisUser = (stats: Stats) => process.getuid === undefined || stats.uid === process.getuid();
