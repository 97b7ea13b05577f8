import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { freshDataDir, runCli, testEnv } from '../support/warden-process.js';

describe('the CLI says what opening the data directory did, as the server does at start', () => {
  it("logs an upgrade's rebuild of the read models when a CLI call opens the data directory first, once", async () => {
    const dataDir = freshDataDir();
    // A read-models file as releases before 2026-11-30 wrote it: a collection's table clustered by id.
    const old = new Database(join(dataDir, 'read-models.db'));
    old.pragma('journal_mode = WAL');
    old.exec(`CREATE TABLE projection_checkpoints (projection TEXT PRIMARY KEY, position INTEGER NOT NULL) WITHOUT ROWID;
              CREATE TABLE "rm/callback_deliveries" (id TEXT PRIMARY KEY, doc TEXT NOT NULL, position INTEGER) WITHOUT ROWID;
              INSERT INTO "rm/callback_deliveries" VALUES ('acme:d1', '{"orgId":"acme","status":"delivered"}', NULL);`);
    old.close();
    const env = testEnv(dataDir);

    const first = await runCli(['read-models', 'digest'], env);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).toMatch(/Read models' tables rebuilt in write order \(an earlier release's data directory\): 1 documents in \d+ ms/);
    expect(first.stdout).toMatch(/callback_deliveries\s+1\s+[0-9a-f]{64}/);

    const again = await runCli(['read-models', 'digest'], env);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).not.toMatch(/rebuilt/);
    // The same documents, the same digest (id order, whatever the table's layout).
    const line = (out: string) => out.split('\n').find((l) => l.includes('callback_deliveries'));
    expect(line(again.stdout)).toBe(line(first.stdout));
  });
});
