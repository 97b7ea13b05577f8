import { existsSync } from 'node:fs';
import type Database from 'better-sqlite3';
import { CLUSTERED, movedUnderLock, type SharedTableMove } from './sqlite-read-store.js';

/** The embedded profile's read models, with the checkpoints of projections and reactors, in a file of their own beside the log. */
export const READ_MODELS_FILE_NAME = 'read-models.db';

/**
 * The read models' tables: a table per collection, the checkpoints, and the shared table of older
 * releases. Releases before the split kept them in the log's file under the same names.
 */
const READ_MODEL_TABLE = /^(rm\/[A-Za-z0-9_]+|projection_checkpoints|read_models)$/;

const quoted = (name: string) => `"${name}"`;

/** The read models' tables in one schema of the connection (`main`, or the attached log's). */
const readModelTables = (db: Database.Database, schema: string) =>
  db
    .prepare<[], { name: string; sql: string }>(`SELECT name, sql FROM ${schema}.sqlite_master WHERE type = 'table'`)
    .all()
    .filter((t) => READ_MODEL_TABLE.test(t.name));

/**
 * Moves the read models that an earlier release kept in the log's file (`logFile`) into this
 * connection's file, with their indexes and checkpoints; then drops them from the log's file. Their
 * own file keeps the log's commits from emptying the read models' page cache and from holding their
 * write lock (and the other way round): the api's appends and the worker's projections no longer
 * wait for each other.
 *
 * The log's copy, when there is one, always wins over what this file holds: it is the one written
 * against that log (a move cut short by a crash leaves two equal copies; a `warden.db` restored from
 * a backup of an earlier release, or written by an earlier release started again, leaves this file
 * ahead of it). Several processes may open the data directory at once: one moves under both files'
 * write locks, the others find nothing left to move. Afterwards a view named `projection_checkpoints`
 * stays in the log's file, so that a release from before the split fails at start there (its
 * checkpoint query finds no column) instead of running every projection and reactor again from
 * the log's start in that file.
 */
export function adoptReadModels(db: Database.Database, logFile: string): SharedTableMove | undefined {
  // No log file (KurrentDB holds the log): nothing to move, and ATTACH would create one with the
  // process's default mode.
  if (!existsSync(logFile)) return undefined;
  db.prepare('ATTACH DATABASE ? AS log').run(logFile);
  try {
    const guard = db.prepare("SELECT 1 FROM log.sqlite_master WHERE type = 'view' AND name = 'projection_checkpoints'");
    const guarded = () => guard.get() !== undefined;
    if (readModelTables(db, 'log').length === 0 && guarded()) return undefined;
    // Dropped tables' pages go to the free list zeroed, in both files: no document a GDPR deletion
    // purges later (a console user's email) survives in them. The read store runs ON as well.
    db.pragma('log.secure_delete = ON');
    db.pragma('main.secure_delete = ON');
    return movedUnderLock(db, () => {
      let documents = 0;
      const tables = readModelTables(db, 'log');
      if (tables.length > 0) {
        for (const table of readModelTables(db, 'main')) db.exec(`DROP TABLE main.${quoted(table.name)}`);
        const indexes = db.prepare<[string], { sql: string }>("SELECT sql FROM log.sqlite_master WHERE type = 'index' AND tbl_name = ? AND sql IS NOT NULL");
        for (const table of tables) {
          // sqlite_master keeps each statement as written, minus IF NOT EXISTS and any schema name.
          // A collection's table comes over as a rowid table, as this release creates them
          // (sqlite-read-store.ts, tableDefinition), instead of being copied a second time by the
          // read store's rebuild of clustered tables.
          const definition = table.name.startsWith('rm/') ? table.sql.replace(CLUSTERED, ')') : table.sql;
          db.exec(definition.replace(/^CREATE TABLE /i, 'CREATE TABLE main.'));
          const copied = db.prepare(`INSERT INTO main.${quoted(table.name)} SELECT * FROM log.${quoted(table.name)}`).run().changes;
          if (table.name !== 'projection_checkpoints') documents += copied;
          for (const index of indexes.all(table.name)) db.exec(index.sql.replace(/^CREATE INDEX /i, 'CREATE INDEX main.'));
          db.exec(`DROP TABLE log.${quoted(table.name)}`);
        }
        // A release older still would create an empty shared table there and serve nothing from
        // it: a view in its place makes it fail at start (as moveSharedTable's does).
        if (tables.some((t) => t.name === 'read_models')) db.exec(`CREATE VIEW log.read_models AS SELECT 'moved to ${READ_MODELS_FILE_NAME}' AS moved`);
      }
      if (!guarded()) db.exec(`CREATE VIEW log.projection_checkpoints AS SELECT 'moved to ${READ_MODELS_FILE_NAME}' AS moved`);
      return documents;
    });
  } finally {
    db.prepare('DETACH DATABASE log').run();
  }
}

/**
 * Drops every read model and checkpoint of this file when a checkpoint is past the log's last
 * position (`logHead()`): read models applied, and reactors answered, events that the log no
 * longer has (a `warden.db` restored from a backup beside a newer `read-models.db`, or the log's
 * tail lost with the machine's power under WARDEN_SQLITE_SYNC=normal, the two files being synced
 * apart). New events would take those positions again and be skipped. Everything is then rebuilt
 * from the log (reactors again from its start: their reactions are idempotent). Returns the
 * checkpoint found ahead, or undefined. The checkpoints are read before the head: a checkpoint
 * only ever moves to a position the log already had, so a live process moving its checkpoints
 * meanwhile never makes this fire.
 */
export async function dropReadModelsAheadOfLog(db: Database.Database, logHead: () => Promise<number>): Promise<number | undefined> {
  const hasCheckpoints = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'projection_checkpoints'");
  const furthest = () =>
    hasCheckpoints.get() ? ((db.prepare('SELECT max(position) AS p FROM projection_checkpoints').get() as { p: number | null }).p ?? 0) : 0;
  const ahead = furthest();
  if (ahead <= (await logHead())) return undefined;
  // Their pages go to the free list zeroed, as the read store's always do.
  db.pragma('secure_delete = ON');
  return db
    .transaction(() => {
      // Another process starting at the same time may have dropped them first.
      if (furthest() !== ahead) return undefined;
      for (const table of readModelTables(db, 'main')) db.exec(`DROP TABLE ${quoted(table.name)}`);
      return ahead;
    })
    .immediate();
}
