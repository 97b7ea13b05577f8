import { createServer, type Server } from 'node:http';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashImage } from '#warden/hashing';
import { eventCount } from '../support/config-files.js';
import { waitFor } from '../support/wait-for.js';
import { freshDataDir, runCli, type RunningWarden, startConfigured, testEnv } from '../support/warden-process.js';

/** A test image with enough structure for a reliable PDQ (quality >= 50). */
function pattern(seed: number, size = 256): Promise<Buffer> {
  const raw = Buffer.alloc(size * size * 3);
  for (let y = 0; y < size; y++) {
    for (let x = 0; x < size; x++) {
      const i = (y * size + x) * 3;
      const v = (Math.sin((x + seed * 17) / (9 + seed)) + Math.cos((y * (seed + 1)) / 23) + 2) * 63;
      raw[i] = v;
      raw[i + 1] = (v * 0.7 + x) % 256;
      raw[i + 2] = (255 - v + y) % 256;
    }
  }
  return sharp(raw, { raw: { width: size, height: size, channels: 3 } })
    .png()
    .toBuffer();
}

interface ImageServer {
  url: string;
  hits: Map<string, number>;
  close(): Promise<void>;
}

async function serve(host: string, routes: Record<string, (res: import('node:http').ServerResponse) => void>): Promise<ImageServer> {
  const hits = new Map<string, number>();
  const server: Server = createServer((req, res) => {
    const path = req.url ?? '/';
    hits.set(path, (hits.get(path) ?? 0) + 1);
    const route = routes[new URL(path, 'http://x').pathname];
    if (route) route(res);
    else {
      res.statusCode = 404;
      res.end('not found');
    }
  });
  await new Promise<void>((r) => server.listen(0, host, r));
  const { port } = server.address() as { port: number };
  return {
    url: `http://${host}:${port}`,
    hits,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

describe('image hashing and hash banks, end to end', () => {
  const dataDir = freshDataDir();
  let images: ImageServer;
  let privateImages: ImageServer;
  let warden: RunningWarden;
  let env: NodeJS.ProcessEnv;
  let key: string;
  let original: Buffer;
  let other: Buffer;

  beforeAll(async () => {
    original = await pattern(1);
    other = await pattern(5);
    // A near-duplicate: re-encoded as JPEG and slightly blurred.
    const near = await sharp(original).blur(0.8).jpeg({ quality: 60 }).toBuffer();
    const png = (body: Buffer) => (res: import('node:http').ServerResponse) => {
      res.setHeader('content-type', 'image/png');
      res.end(body);
    };
    privateImages = await serve('127.0.0.2', { '/orig.png': png(original) });
    images = await serve('127.0.0.1', {
      '/orig.png': png(original),
      '/near.jpg': png(near),
      '/other.png': png(other),
      '/text': (res) => res.end('this is not an image'),
      '/huge': (res) => {
        res.setHeader('content-type', 'image/png');
        res.end(Buffer.alloc(21 * 1024 * 1024, 1));
      },
      '/slow': () => undefined,
      '/redirect': (res) => {
        res.statusCode = 302;
        res.setHeader('location', privateImages.url + '/orig.png');
        res.end();
      },
    });
    const bankHash = (await hashImage(original)).pdq;
    const config = `org: { id: pics, name: Pics }
itemTypes:
  - { id: post, name: Post, kind: CONTENT, fields: [{ name: text, type: STRING }, { name: photo, type: IMAGE }] }
actions:
  - { id: remove, name: Remove, kind: CUSTOMER_DEFINED_ACTION, itemTypeIds: [post], callback: { url: "http://127.0.0.1:9/x" } }
hashBanks:
  - { id: known-bad, name: Known bad, hashType: PDQ, hashes: [${bankHash}] }
  - { id: exact, name: Exact, hashType: MD5 }
rules:
  - id: known-bad-image
    name: Known bad image
    status: LIVE
    itemTypeIds: [post]
    actionIds: [remove]
    conditionSet:
      conjunction: OR
      conditions:
        - { input: { builtin: ANY_IMAGE }, signal: { type: IMAGE_HASH_MATCH }, comparator: EQUALS, value: true }
`;
    const file = join(dataDir, 'pics.yaml');
    writeFileSync(file, config);
    env = testEnv(dataDir, { WARDEN_OUTBOUND_ALLOWLIST: '127.0.0.1/32', WARDEN_MEDIA_TIMEOUT_MS: '1500' });
    ({ warden, key } = await startConfigured(env, file, 'pics'));
  });
  afterAll(async () => {
    await warden?.stop();
    await images?.close();
    await privateImages?.close();
  });

  const submit = (id: string, data: Record<string, unknown>) =>
    fetch(warden.url + '/api/v1/items/async', {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      body: JSON.stringify({ items: [{ id, typeId: 'post', data }] }),
    });
  const evaluation = (id: string) =>
    waitFor(async () => {
      const res = await fetch(`${warden.url}/api/v1/items/post/${id}/evaluations`, { headers: { 'x-api-key': key } });
      const body = (await res.json()) as { evaluations: Array<{ rules: Array<Record<string, unknown>>; actions: Array<{ id: string }> }> };
      return body.evaluations[0];
    }, `the evaluation of ${id}`);

  it('fires the rule for a near-duplicate of a banked image, showing bank, hash and distance', async () => {
    expect((await submit('near', { images: [images.url + '/near.jpg'] })).status).toBe(202);
    const e = await evaluation('near');
    expect(e.actions.map((a) => a.id)).toEqual(['remove']);
    const leaf = (e.rules[0]!['conditions'] as Array<Record<string, unknown>>)[0]!;
    expect(leaf['outcome']).toBe('passed');
    expect(leaf['detail']).toMatchObject({ bankId: 'known-bad', distance: expect.any(Number) });
    expect((leaf['detail'] as { distance: number }).distance).toBeLessThanOrEqual(31);
    expect(images.hits.get('/near.jpg')).toBe(1);
  });

  it('also hashes IMAGE fields; an unrelated image does not match', async () => {
    await submit('field', { photo: images.url + '/orig.png', images: [images.url + '/other.png'] });
    expect((await evaluation('field')).actions.map((a) => a.id)).toEqual(['remove']);
    await submit('unrelated', { images: [images.url + '/other.png'] });
    const e = await evaluation('unrelated');
    expect(e.rules[0]!['outcome']).toBe('failed');
    expect(e.actions).toEqual([]);
  });

  it('leaves image signals unknown, never the item unevaluated, for 404, timeout, non-image, oversized, private and redirected-to-private URLs', async () => {
    const bad = ['/missing.png', '/slow', '/text', '/huge', '/redirect'].map((p) => images.url + p);
    bad.push(privateImages.url + '/orig.png');
    await submit('bad', { images: bad });
    const e = await evaluation('bad');
    expect(e.rules[0]!['outcome']).toBe('unknown');
    expect(e.actions).toEqual([]);
    // A result each, sealed under the item's subject (the reasons are inside).
    const results = eventCount(dataDir, "type = 'MediaHashed' AND json_extract(data, '$.item.id') = 'bad' AND json_extract(data, '$.__personal') IS NOT NULL");
    expect(results).toBe(6);
    // Each failure is logged with its reason, by the item and a digest of the URL.
    const logged = await waitFor(() => {
      const lines = warden
        .logs()
        .split('\n')
        .filter((l) => l.includes('"media not hashed"') && l.includes('"id":"bad"'));
      return lines.length === 6 && lines.map((l) => JSON.parse(l) as { reason: string; media: string });
    }, 'six "media not hashed" lines of the item');
    expect(new Set(logged.map((l) => l.reason))).toEqual(new Set(['http-404', 'timeout', 'not-an-image', 'too-large', 'refused-address']));
    expect(new Set(logged.map((l) => l.media)).size).toBe(6);
    expect(logged.map((l) => JSON.stringify(l)).join('\n')).not.toContain(images.url);
    // Refused before any connection: the private server never saw a request.
    expect(privateImages.hits.size).toBe(0);
    for (const p of ['/missing.png', '/slow', '/text', '/huge', '/redirect']) expect(images.hits.get(p)).toBe(1);
  });

  it('matches hashes added by bank import, without a restart', async () => {
    const file = join(dataDir, 'import.txt');
    writeFileSync(file, `# one MD5\n${(await hashImage(other)).md5}\nnot-a-hash\n${Array.from({ length: 21 }, () => 'x').join('\n')}\n`);
    const rejected = await runCli(['bank', 'import', '--org', 'pics', '--bank', 'exact', file], env);
    expect(rejected.code).toBe(1);
    // A malformed line a line, as apply prints its problems; the first 20, then how many more.
    expect(rejected.stderr.split('\n').slice(0, 3)).toEqual([
      `${file}: nothing was imported:`,
      '  line 3: not a 32-character hex MD5 hash (10 characters)',
      '  line 4: not a 32-character hex MD5 hash (1 character)',
    ]);
    expect(rejected.stderr).toContain('\n  … and 2 more malformed lines');
    // Lines are never quoted: the file named may be any file (a key, credentials) by mistake.
    expect(rejected.stderr).not.toContain('not-a-hash');
    // A device or a FIFO is refused before it is read (/dev/zero would be read until memory ran out).
    const device = await runCli(['bank', 'import', '--org', 'pics', '--bank', 'exact', '/dev/zero'], env);
    expect(device.code).toBe(1);
    expect(device.stderr).toContain('cannot read hashes file "/dev/zero": not a regular file');
    writeFileSync(file, `# one MD5\n${(await hashImage(other)).md5}\n`);
    const imported = await runCli(['bank', 'import', '--org', 'pics', '--bank', 'exact', file], env);
    expect(imported.code, imported.stderr).toBe(0);
    expect(imported.stdout).toContain('Imported 1 hash(es) into bank exact');
    // The running server picks the import up without a restart: items submitted from now on come
    // to match. Each uses a URL not evaluated before: signal results are memoized for 30 s per input.
    let attempt = 0;
    const actions = await waitFor(
      async () => {
        const id = `other-now-${attempt++}`;
        expect((await submit(id, { images: [`${images.url}/other.png?fresh-${id}`] })).status).toBe(202);
        const ids = (await evaluation(id)).actions.map((a) => a.id);
        return ids.length > 0 && ids;
      },
      { what: 'an item with the imported image to fire the rule', intervalMs: 100 },
    );
    expect(actions).toEqual(['remove']);
    // Applying the configuration again never removes imported hashes.
    const again = await runCli(['apply', join(dataDir, 'pics.yaml')], env);
    expect(again.stdout).toContain('No changes');
    // Nor can a changed hashType leave them there, never matching: refused, nothing written.
    const retyped = join(dataDir, 'pics-retyped.yaml');
    writeFileSync(
      retyped,
      readFileSync(join(dataDir, 'pics.yaml'), 'utf8').replace('{ id: exact, name: Exact, hashType: MD5 }', '{ id: exact, name: Exact, hashType: SHA256 }'),
    );
    const events = eventCount(dataDir);
    const refused = await runCli(['apply', retyped], env);
    expect(refused.code, refused.stdout).toBe(1);
    expect(refused.stderr).toContain(
      'hashBanks[1].hashType: bank "exact" holds 1 imported hash(es) of its MD5 type (warden bank import), which a SHA256 bank would never match',
    );
    expect(eventCount(dataDir)).toBe(events);
    // bank remove takes the imported hash out: the image no longer fires the rule, and the bank
    // may then change its type.
    const removed = await runCli(['bank', 'remove', '--org', 'pics', '--bank', 'exact', file], env);
    expect(removed.code, removed.stderr).toBe(0);
    expect(removed.stdout).toContain('Removed 1 hash(es) from bank exact (0 not imported there');
    await waitFor(
      async () => {
        const id = `other-removed-${attempt++}`;
        expect((await submit(id, { images: [`${images.url}/other.png?fresh-${id}`] })).status).toBe(202);
        return (await evaluation(id)).actions.length === 0;
      },
      { what: 'an item with the removed image to fire no rule', intervalMs: 100 },
    );
    const again2 = await runCli(['bank', 'remove', '--org', 'pics', '--bank', 'exact', file], env);
    expect(again2.stdout).toContain('Removed 0 hash(es) from bank exact (1 not imported there');
    const retypedNow = await runCli(['apply', retyped], env);
    expect(retypedNow.code, retypedNow.stderr).toBe(0);
  });
});
