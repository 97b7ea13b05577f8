import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { openStorage } from './storage.js';

describe("openStorage on an earlier release's data directory", () => {
  it('says once, in its notices, that it moved the read models to a table per collection', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'warden-storage-'));
    const old = new Database(join(dataDir, 'warden.db'));
    old.exec(`CREATE TABLE read_models (collection TEXT NOT NULL, id TEXT NOT NULL, doc TEXT NOT NULL, position INTEGER, PRIMARY KEY (collection, id)) WITHOUT ROWID;
              INSERT INTO read_models VALUES ('jobs', 'j1', '{"state":"PENDING"}', 5), ('jobs', 'j2', '{"state":"DONE"}', 6);`);
    old.close();
    const config = { dataDir, sqliteSync: 'normal', eventStoreUrl: undefined, mongoUrl: undefined, secretKey: undefined } as const;
    const first = await openStorage(config);
    expect(first.notices.filter((n) => n.startsWith('Read models moved'))).toEqual([
      expect.stringMatching(/^Read models moved to a table per collection .*: 2 documents in \d+ ms; earlier releases can no longer open this data directory$/),
    ]);
    expect(await first.readStore.get('jobs', 'j2')).toEqual({ state: 'DONE' });
    await first.close();
    const again = await openStorage(config);
    expect(again.notices.some((n) => n.startsWith('Read models moved'))).toBe(false);
    await again.close();
  });
});
