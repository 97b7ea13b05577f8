import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readConfigFile } from './apply-command.js';

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((dir) => rmSync(dir, { recursive: true, force: true })));

/** A configuration file with one hash bank reading `hashesFile`, in a folder of its own. */
function configWithHashesFile(hashesFile: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'warden-apply-'));
  dirs.push(dir);
  const file = join(dir, 'org.yaml');
  writeFileSync(file, `org: { id: acme, name: Acme }\nhashBanks:\n  - { id: b, name: B, hashType: SHA256, hashesFile: "${hashesFile}" }\n`);
  return file;
}

describe('readConfigFile: the hashes file', () => {
  it('refuses a hashes file that is not a regular file (a device is read until memory runs out, a FIFO until a writer comes)', () => {
    expect(readConfigFile(configWithHashesFile('/dev/null'), {})).toEqual({
      ok: false,
      problems: [{ path: 'hashBanks[0].hashesFile', message: 'cannot read hashes file "/dev/null": not a regular file' }],
    });
  });

  it('reads a regular hashes file relative to the configuration file', () => {
    const file = configWithHashesFile('bank.txt');
    writeFileSync(join(file, '..', 'bank.txt'), `${'ab'.repeat(32)}\n`);
    const result = readConfigFile(file, {});
    expect(result.ok && result.config.hashBanks[0]?.hashes).toEqual(['ab'.repeat(32)]);
  });
});
