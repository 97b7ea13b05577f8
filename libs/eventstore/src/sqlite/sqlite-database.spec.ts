import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { dataVersion, openSqlite } from './sqlite-database.js';

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((dir) => rmSync(dir, { recursive: true, force: true })));

describe('dataVersion', () => {
  it("moves when another connection commits, and not for the connection's own commits, asked again and again", () => {
    const dir = mkdtempSync(join(tmpdir(), 'warden-data-version-'));
    dirs.push(dir);
    const reader = openSqlite(join(dir, 'log.db'));
    const writer = openSqlite(join(dir, 'log.db'));
    try {
      writer.exec('CREATE TABLE t (x INTEGER)');
      const before = dataVersion(reader);
      expect(dataVersion(reader)).toBe(before);
      reader.exec('INSERT INTO t VALUES (1)');
      expect(dataVersion(reader)).toBe(before);
      writer.exec('INSERT INTO t VALUES (2)');
      const after = dataVersion(reader);
      expect(after).not.toBe(before);
      writer.exec('INSERT INTO t VALUES (3)');
      expect(dataVersion(reader)).not.toBe(after);
    } finally {
      reader.close();
      writer.close();
    }
  });
});
