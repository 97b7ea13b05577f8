import { chmodSync, chownSync, mkdtempSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { secureDataDir } from './data-directory.js';

const mode = (path: string) => (statSync(path).mode & 0o777).toString(8);
const isRoot = process.getuid?.() === 0;

describe('the data directory', () => {
  it("is created 0700, and an older one is tightened: Warden's own files 0600, other files as they were", () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'warden-datadir-')), 'data');
    expect(secureDataDir(dir)).toEqual([]);
    expect(mode(dir)).toBe('700');
    chmodSync(dir, 0o755);
    for (const name of ['warden.db', 'warden.db-wal', 'secret.key', 'notes.sh']) {
      writeFileSync(join(dir, name), '');
      chmodSync(join(dir, name), 0o755);
    }
    expect(secureDataDir(dir)).toEqual([]);
    expect([mode(dir), mode(join(dir, 'warden.db')), mode(join(dir, 'warden.db-wal')), mode(join(dir, 'secret.key'))]).toEqual(['700', '600', '600', '600']);
    expect(mode(join(dir, 'notes.sh'))).toBe('755');
  });

  // chown needs root; as another user, files owned by someone else cannot be made here.
  it.skipIf(!isRoot)('leaves what another user owns as it is, says so, and does not fail (a volume mounted for a group)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'warden-datadir-'));
    chmodSync(dir, 0o775);
    const db = join(dir, 'warden.db');
    writeFileSync(db, '');
    chmodSync(db, 0o664);
    chownSync(dir, 65534, 65534);
    chownSync(db, 65534, 65534);
    const notices = secureDataDir(dir);
    expect([mode(dir), mode(db)]).toEqual(['775', '664']);
    expect(notices).toHaveLength(2);
    expect(notices[1]).toContain('warden.db is owned by another user');
  });
});
