import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { freshDataDir, runCli, testEnv } from '../support/warden-process.js';

/** The PDQ reference vectors, kept in the repository (test/fixtures/pdq/README.md says where from). */
const PDQ = join(import.meta.dirname, '../fixtures/pdq');

describe('warden hash', () => {
  it('prints the reference hex format, quality, MD5 and SHA-256 of local files, without a server', async () => {
    const files = ['bridge-mods/aaa-orig.jpg', 'misc-images/small.jpg'];
    const result = await runCli(['hash', ...files.map((f) => join(PDQ, 'data', f))], testEnv(freshDataDir()));
    expect(result.code).toBe(0);
    const expected = readFileSync(join(PDQ, 'expected/cpp-current-build.csv'), 'utf8');
    const lines = result.stdout.trim().split('\n');
    expect(lines).toHaveLength(2);
    lines.forEach((line, i) => {
      const [pdq, quality, md5, sha256, input] = line.split(',');
      expect(expected).toContain(`${pdq},${quality},${files[i]}`);
      expect(md5).toMatch(/^[0-9a-f]{32}$/);
      expect(sha256).toMatch(/^[0-9a-f]{64}$/);
      expect(input).toBe(join(PDQ, 'data', files[i]!));
    });
  });

  it('refuses an input that is not a regular file (a device would be read until memory runs out), and hashes the others', async () => {
    const image = join(PDQ, 'data', 'misc-images/small.jpg');
    const result = await runCli(['hash', '/dev/zero', image], testEnv(freshDataDir()));
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain('/dev/zero: not a regular file');
    expect(result.stdout.trim().split('\n')).toHaveLength(1);
  });
});
