import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
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

  it('prints a URL without its query string or user info, on the hash line and on an error', async () => {
    const image = readFileSync(join(PDQ, 'data', 'misc-images/small.jpg'));
    const server = createServer((req, res) => {
      if (req.url?.startsWith('/small.jpg')) res.end(image);
      else res.writeHead(404).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const signed = `${base}/small.jpg?X-Amz-Signature=s3cr3t-signature&X-Amz-Credential=AKIA`;
      const missing = `${base}/gone.jpg?token=s3cr3t-token`;
      const result = await runCli(['hash', signed, missing], testEnv(freshDataDir()));
      expect(result.code).toBe(1);
      expect(result.stdout.trim().split('\n')).toEqual([
        expect.stringMatching(new RegExp(`^[0-9a-f]{64},\\d+,[0-9a-f]{32},[0-9a-f]{64},${base}/small\\.jpg\\?…$`)),
      ]);
      expect(result.stderr).toContain(`${base}/gone.jpg?…: HTTP 404`);
      expect(result.stdout + result.stderr).not.toMatch(/s3cr3t|AKIA/);
    } finally {
      server.close();
    }
  });
});
