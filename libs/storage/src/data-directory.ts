import { chmodSync, lstatSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

/** Only the user Warden runs as may list the data directory... */
export const DATA_DIR_MODE = 0o700;
/** ...or read and write what it holds: the log, the read models, the personal-data keys, secret.key. */
export const DATA_FILE_MODE = 0o600;

/**
 * Creates the embedded profile's data directory private to the user Warden runs as, and tightens
 * one created by an earlier release (which left it and `warden.db` readable by every user): the
 * directory becomes 0700 and every file directly in it 0600. Files SQLite creates later
 * (`warden.db-wal`, `-shm`) take the database file's mode. Symbolic links are left alone: what they
 * point to is not Warden's to change.
 */
export function secureDataDir(dataDir: string): void {
  mkdirSync(dataDir, { recursive: true, mode: DATA_DIR_MODE });
  chmodSync(dataDir, DATA_DIR_MODE);
  for (const name of readdirSync(dataDir)) {
    const path = join(dataDir, name);
    if (lstatSync(path).isFile()) chmodSync(path, DATA_FILE_MODE);
  }
}
