import type Database from 'better-sqlite3';
import type { SharedTableMove } from './sqlite-read-store.js';

/** The embedded profile's read models, checkpoints included, in a file of their own beside the log. */
export const READ_MODELS_FILE_NAME = 'read-models.db';

/** What releases before the split kept in the log's file: a table per collection, the checkpoints, and the older shared table. */
const LEGACY_TABLE = /^(rm\/[A-Za-z0-9_]+|projection_checkpoints|read_models)$/;

const quoted = (name: string) => `"${name}"`;

/**
 * Moves the read models that an earlier release kept in the log's file (`logFile`) into this
 * connection's file, once, with their indexes; then drops them from the log's file. Their own file
 * keeps the log's commits from emptying the read models' page cache and from holding their write
 * lock (and the other way round): the api's appends and the worker's projections no longer wait
 * for each other.
 *
 * Several processes may open the data directory at once: one moves under both files' write locks,
 * the others find nothing left to move. The two files commit one after the other, so a crash may
 * leave the tables in both (the next start only drops the log's copies, this file's checkpoints
 * being there) or in neither (the projections rebuild them from the log, their checkpoints being
 * gone with them): read models can always be rebuilt.
 */
export function adoptReadModels(db: Database.Database, logFile: string): SharedTableMove | undefined {
  db.prepare('ATTACH DATABASE ? AS log').run(logFile);
  const busyTimeout = Number(db.pragma('busy_timeout', { simple: true }));
  try {
    const legacy = db.prepare<[], { name: string; sql: string }>("SELECT name, sql FROM log.sqlite_master WHERE type = 'table'");
    const legacyTables = () => legacy.all().filter((t) => LEGACY_TABLE.test(t.name));
    if (legacyTables().length === 0) return undefined;
    const started = performance.now();
    let documents = 0;
    // Moving a million documents takes seconds, and so may another process's move.
    db.pragma('busy_timeout = 600000');
    // The dropped tables' pages go to the log file's free list zeroed: no document a GDPR deletion
    // purges later (a console user's email) survives there.
    db.pragma('log.secure_delete = ON');
    db.transaction(() => {
      const tables = legacyTables();
      if (tables.length === 0) return;
      const hasCheckpoints = db.prepare("SELECT 1 FROM main.sqlite_master WHERE type = 'table' AND name = 'projection_checkpoints'").get() !== undefined;
      const fresh = !hasCheckpoints || db.prepare('SELECT 1 FROM main.projection_checkpoints LIMIT 1').get() === undefined;
      const indexes = db.prepare<[string], { sql: string }>("SELECT sql FROM log.sqlite_master WHERE type = 'index' AND tbl_name = ? AND sql IS NOT NULL");
      for (const table of tables) {
        if (fresh) {
          db.exec(`DROP TABLE IF EXISTS main.${quoted(table.name)}`);
          db.exec(table.sql.replace(/^CREATE TABLE (IF NOT EXISTS )?/i, 'CREATE TABLE main.'));
          const copied = db.prepare(`INSERT INTO main.${quoted(table.name)} SELECT * FROM log.${quoted(table.name)}`).run().changes;
          if (table.name !== 'projection_checkpoints') documents += copied;
          for (const index of indexes.all(table.name)) db.exec(index.sql.replace(/^CREATE INDEX (IF NOT EXISTS )?/i, 'CREATE INDEX main.'));
        }
        db.exec(`DROP TABLE log.${quoted(table.name)}`);
      }
      // A release older still, opening the log's file, would create an empty shared table and serve
      // nothing from it: a view in its place makes it fail at start (as moveSharedTable's does).
      if (tables.some((t) => t.name === 'read_models')) db.exec(`CREATE VIEW log.read_models AS SELECT 'moved to ${READ_MODELS_FILE_NAME}' AS moved`);
    }).immediate();
    return documents > 0 ? { documents, ms: Math.round(performance.now() - started) } : undefined;
  } finally {
    db.pragma(`busy_timeout = ${busyTimeout}`);
    db.prepare('DETACH DATABASE log').run();
  }
}
