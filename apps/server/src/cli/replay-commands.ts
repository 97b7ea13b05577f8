import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { QueryBus } from '@nestjs/cqrs';
import Database from 'better-sqlite3';
import { checkReplayedChain, type Jwks } from '#warden/audit';
import { GetSigningKeysQuery } from '#warden/callbacks';
import { parseIsoInstant } from '#warden/catalog/contracts';
import { openSqlite, rebuildReadModels, SQLITE_FILE_NAME, SqliteEventStore, SqliteSubjectKeyStore } from '#warden/eventstore';
import { canonicalJsonDigest } from '#warden/kernel';
import { loadConfig, type WardenConfig } from '#warden/platform';
import { READ_MODELS_FILE_NAME, type ReadStore, SqliteReadStore } from '#warden/readstore';
import { ProjectionHost, STORAGE, type Storage, KEY_FILE } from '#warden/storage';
import { withApp } from './app-context.js';
import { type AppCommand, type Out, type StandaloneCommand, UsageError } from './cli-command.js';
import { parseCommandArgs } from './command-options.js';
import { formatTable } from './format-table.js';

/** Documents read at a time when digesting a collection. */
const DIGEST_PAGE = 1000;

export const readModelsDigestCommand: AppCommand = {
  name: 'read-models digest',
  usage: '',
  description: 'one SHA-256 per read-model collection, over its documents in id order (equal after every rebuild of the same log)',
  async runInApp(args, app, out) {
    parseCommandArgs(args, {});
    const storage = app.get<Storage>(STORAGE);
    const collections = [
      ...new Set(
        app
          .get(ProjectionHost)
          .projections()
          .flatMap((p) => p.collections),
      ),
    ].sort();
    const rows: string[][] = [];
    for (const collection of collections) {
      const hash = createHash('sha256');
      let count = 0;
      for (;;) {
        const page = await storage.readStore.find(collection, {}, { skip: count, limit: DIGEST_PAGE, byId: true });
        for (const doc of page) hash.update(`${canonicalJsonDigest(doc)}\n`);
        count += page.length;
        if (page.length < DIGEST_PAGE) break;
      }
      rows.push([collection, String(count), hash.digest('hex')]);
    }
    out(formatTable(['collection', 'documents', 'sha256'], rows));
    return 0;
  },
};

export const replayCommand: StandaloneCommand = {
  name: 'replay',
  usage: '--until <ISO time|log position> --out <dir>',
  description:
    'rebuilds every read model as it was at that point into a new data directory (serve it with WARDEN_READ_ONLY=true), after checking the copied log against the recorded audit chain (refused, exit 1, where it does not match)',
  async run(args, out) {
    const { values } = parseCommandArgs(args, { until: { type: 'string' }, out: { type: 'string' } });
    if (!values.until) throw new UsageError('Missing --until');
    if (!values.out) throw new UsageError('Missing --out');
    checkUntil(values.until);
    const config = loadConfig();
    if (config.eventStoreUrl !== undefined || config.mongoUrl !== undefined) {
      throw new UsageError('replay reads the embedded profile (the SQLite log in WARDEN_DATA_DIR); it does not read KurrentDB or MongoDB yet');
    }
    const target = resolve(values.out);
    if (target === resolve(config.dataDir)) throw new UsageError('--out must be another directory than WARDEN_DATA_DIR');
    const existed = existsSync(target);
    if (existed && readdirSync(target).length > 0) throw new UsageError(`--out ${target} is not empty`);
    mkdirSync(target, { recursive: true, mode: 0o700 });
    // Whatever fails from here leaves --out as it was found (empty, or absent), so the same command can run again.
    try {
      const code = await replayInto(config, target, values.until, out);
      if (code !== 0) emptyOut(target, existed);
      return code;
    } catch (error) {
      emptyOut(target, existed);
      throw error;
    }
  },
};

async function replayInto(config: WardenConfig, target: string, until: string, out: Out): Promise<number> {
  const copied = copyLogPrefix(join(config.dataDir, SQLITE_FILE_NAME), join(target, SQLITE_FILE_NAME), until);
  // Sealed secrets (signing keys, SSO certificates) open with the source's generated key.
  if (existsSync(join(config.dataDir, KEY_FILE))) copyFileSync(join(config.dataDir, KEY_FILE), join(target, KEY_FILE));
  const started = Date.now();
  const recorded = openRecordedChain(join(config.dataDir, READ_MODELS_FILE_NAME));
  try {
    // Read-only: rebuilding read models appends nothing, and neither may the check (a signing key
    // created on first need would be an event the source never had).
    const report = await withApp({ ...config, dataDir: target, readOnly: true }, async (app) => {
      const storage = app.get<Storage>(STORAGE);
      const host = app.get(ProjectionHost);
      await rebuildReadModels(host.projections(), storage.events, storage.readStore);
      for (const p of host.projections().filter((p) => p.log === 'as-stored')) await host.catchUp(p.name);
      const queries = app.get(QueryBus);
      return checkReplayedChain({
        log: storage.storedEvents,
        replayed: storage.readStore,
        recorded: recorded?.store,
        through: copied.through,
        // Only keys this keyring made: the copy's own key records are as trustworthy as the rest of it.
        signingKeys: async (orgId) => (await queries.execute(new GetSigningKeysQuery(orgId, true, true))) as unknown as Jwks,
      });
    });
    if (report.problemCount > 0) {
      for (const problem of report.problems) out(problem);
      if (report.problemCount > report.problems.length) out(`… and ${report.problemCount - report.problems.length} more`);
      out(
        `REFUSED: the log up to position ${copied.through} does not match the audit chain recorded in ${config.dataDir} ` +
          `(${report.problemCount} problem(s)); nothing was replayed, ${target} is left empty`,
      );
      return 1;
    }
    out(`Replayed ${copied.events} event(s), up to log position ${copied.through}, into ${target}; read models rebuilt in ${Date.now() - started} ms`);
    out(
      `Checked against the recorded audit chain: ${report.matched} event(s) match their recorded link, ${report.checkpoints} signed checkpoint(s) verified` +
        (report.legacyCheckpoints > 0 ? ` (${report.legacyCheckpoints} of chain v1: their signature; their v1 link is not this chain's)` : '') +
        (recorded ? '' : ` (no read models in ${config.dataDir}: no recorded links to compare with)`),
    );
    if (report.unrecorded > 0) {
      out(`WARNING: ${report.unrecorded} event(s) at the end come after the recorded chain (it had not linked them yet): nothing vouches for them`);
    }
    // The server's own port, as this CLI call reads it, and the next one for the copy.
    out(
      `Serve it read-only: WARDEN_DATA_DIR=${target} WARDEN_READ_ONLY=true PORT=${config.port + 1} npm start (a port of its own, beside the server on ${config.port})`,
    );
    return 0;
  } finally {
    recorded?.close();
  }
}

/** The source's read models, opened read-only: the chain links recorded as the events were appended. */
function openRecordedChain(file: string): { store: ReadStore; close(): void } | undefined {
  if (!existsSync(file)) return undefined;
  const db = new Database(file, { readonly: true, fileMustExist: true });
  return { store: new SqliteReadStore(db), close: () => db.close() };
}

/** --out as it was before the replay: removed if it did not exist, else emptied. */
function emptyOut(target: string, existed: boolean): void {
  if (!existed) return rmSync(target, { recursive: true, force: true });
  for (const entry of readdirSync(target)) rmSync(join(target, entry), { recursive: true, force: true });
}

function checkUntil(until: string): void {
  if (!/^\d+$/.test(until)) untilInstant(until);
}

/**
 * A time bound read as `audit export --from/--to` reads one (parseIsoInstant): a comma fraction and
 * an offset of hours are understood, and a time without an offset is UTC whatever the machine's
 * time zone (`Date` would read it as local time).
 */
function untilInstant(until: string): Date {
  const at = parseIsoInstant(until);
  if (at === undefined) throw new UsageError(`--until must be an ISO 8601 time or a log position, got "${until}"`);
  return at;
}

/**
 * Copies the source log up to the bound into a new file, positions and revisions unchanged, with
 * the data keys as they are now (what was erased since stays erased). A time bound ends the log
 * before the first event that occurred after it: a prefix, as the log was then.
 */
function copyLogPrefix(source: string, target: string, until: string): { events: number; through: number } {
  if (!existsSync(source)) throw new UsageError(`No embedded log at ${source}`);
  const db = openSqlite(target, { synchronous: 'normal' });
  try {
    // The stores create their tables.
    new SqliteEventStore(db);
    new SqliteSubjectKeyStore(db);
    db.prepare('ATTACH DATABASE ? AS src').run(source);
    const through = positionOf(db, until);
    const copy = db.transaction(() => {
      const events = db.prepare('INSERT INTO main.events SELECT * FROM src.events WHERE position <= ?').run(through).changes;
      db.prepare('INSERT INTO main.subject_keys SELECT * FROM src.subject_keys').run();
      return events;
    });
    const events = copy();
    db.prepare('DETACH DATABASE src').run();
    return { events, through };
  } finally {
    db.close();
  }
}

function positionOf(db: ReturnType<typeof openSqlite>, until: string): number {
  if (/^\d+$/.test(until)) return Number(until);
  const at = untilInstant(until);
  const after = db
    .prepare<[string], { p: number | null }>("SELECT min(position) AS p FROM src.events WHERE json_extract(metadata, '$.occurredAt') > ?")
    .get(at.toISOString());
  if (after?.p != null) return after.p - 1;
  return db.prepare<[], { p: number | null }>('SELECT max(position) AS p FROM src.events').get()?.p ?? 0;
}
