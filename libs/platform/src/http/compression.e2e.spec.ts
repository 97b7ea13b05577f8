import 'reflect-metadata';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { brotliDecompressSync, gunzipSync, gzipSync } from 'node:zlib';
import { Body, Controller, Get, Global, Header, Module, Post, Query, StreamableFile } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Public } from '../auth/principal.js';
import { loadConfig } from '../config/warden-config.js';
import { createRootLogger } from '../observability/logger.js';
import { PlatformModule } from '../platform.module.js';
import { PlatformHttpModule } from '../platform-http.module.js';
import { READINESS_CHECKS } from '../observability/readiness.js';
import { createHttpApp } from './http-app.js';

/** The console as `npm run build` made it: this file is in the e2e project (`*.e2e.spec.ts`), which refuses a stale dist/. */
const CONSOLE_DIR = fileURLToPath(new URL('../../../../dist/console', import.meta.url));

@Controller('test')
@Public()
class ListController {
  /** A list answer of `n` rows: 2 rows are a few hundred bytes, 400 rows tens of kilobytes. */
  @Get('rows')
  rows(@Query('n') n: string): { data: Array<{ id: string; state: string; labels: string[] }> } {
    return { data: Array.from({ length: Number(n) }, (_, i) => ({ id: `item-${i}`, state: 'PENDING', labels: ['spam', 'abuse'] })) };
  }

  @Post('echo')
  echo(@Body() body: Record<string, unknown>): Record<string, unknown> {
    return body;
  }

  /** Streamed like the audit export: NDJSON lines from an async generator. */
  @Get('lines')
  @Header('Content-Type', 'application/x-ndjson; charset=utf-8')
  lines(): StreamableFile {
    return new StreamableFile(Readable.from(ndjson()), { type: 'application/x-ndjson; charset=utf-8' });
  }
}

const LINE_COUNT = 2_000;
const expectedLines = () => Array.from({ length: LINE_COUNT }, (_, i) => `${JSON.stringify({ seq: i + 1, type: 'ItemSubmitted' })}\n`).join('');
async function* ndjson(): AsyncGenerator<string> {
  for (let i = 0; i < LINE_COUNT; i++) {
    if (i % 500 === 0) await new Promise((resolve) => setImmediate(resolve));
    yield `${JSON.stringify({ seq: i + 1, type: 'ItemSubmitted' })}\n`;
  }
}

interface RawAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** The bytes as they came over the wire (node:http does not decode them, unlike fetch). */
  body: Buffer;
}

function get(url: string, headers: Record<string, string> = {}): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

const decode = (answer: RawAnswer): Buffer => {
  const encoding = answer.headers['content-encoding'];
  if (encoding === 'br') return brotliDecompressSync(answer.body);
  if (encoding === 'gzip') return gunzipSync(answer.body);
  expect(encoding).toBeUndefined();
  return answer.body;
};

const varyOn = (answer: RawAnswer) =>
  String(answer.headers['vary'] ?? '')
    .toLowerCase()
    .split(',')
    .map((token) => token.trim());

/** Issue 30, item 15: answers are compressed per Accept-Encoding, the console's assets from files compressed at build time. */
describe('HTTP compression', () => {
  let app: NestFastifyApplication;
  let url: string;
  let scriptPath: string;
  let script: Buffer;

  beforeAll(async () => {
    const page = readFileSync(join(CONSOLE_DIR, 'index.html'), 'utf8');
    scriptPath = /src="(\/console\/assets\/[^"]+\.js)"/.exec(page)?.[1] ?? '';
    script = readFileSync(join(CONSOLE_DIR, 'assets', scriptPath.slice('/console/assets/'.length)));
    const config = loadConfig({ WARDEN_DATA_DIR: mkdtempSync(join(tmpdir(), 'warden-compress-')), WARDEN_LOG_LEVEL: 'silent' });
    @Global()
    @Module({ providers: [{ provide: READINESS_CHECKS, useValue: [] }], exports: [READINESS_CHECKS] })
    class NoStoresModule {}
    @Module({ imports: [PlatformModule.forRoot(config), PlatformHttpModule, NoStoresModule], controllers: [ListController] })
    class ProbeModule {}
    app = await createHttpApp(ProbeModule, config, createRootLogger('silent'), 'test', { consoleDir: CONSOLE_DIR });
    await app.listen({ port: 0, host: '127.0.0.1' });
    url = `http://127.0.0.1:${(app.getHttpServer().address() as { port: number }).port}`;
  });
  afterAll(async () => {
    await app?.close();
  });

  it('the build leaves a brotli and a gzip copy beside each script and style sheet', () => {
    const file = join(CONSOLE_DIR, 'assets', scriptPath.slice('/console/assets/'.length));
    expect(existsSync(`${file}.br`)).toBe(true);
    expect(existsSync(`${file}.gz`)).toBe(true);
    expect(brotliDecompressSync(readFileSync(`${file}.br`)).equals(script)).toBe(true);
    expect(gunzipSync(readFileSync(`${file}.gz`)).equals(script)).toBe(true);
  });

  it.each(['br', 'gzip'])("serves the console's script %s-encoded, its bytes the file's once decoded, with its headers", async (encoding) => {
    const answer = await get(url + scriptPath, { 'accept-encoding': encoding });
    expect(answer.status).toBe(200);
    expect(answer.headers['content-encoding']).toBe(encoding);
    expect(decode(answer).equals(script)).toBe(true);
    expect(Number(answer.headers['content-length'])).toBe(answer.body.length);
    expect(answer.body.length).toBeLessThan(script.length / 2);
    expect(varyOn(answer)).toContain('accept-encoding');
    expect(answer.headers['content-type']).toMatch(/javascript/);
    expect(answer.headers['x-content-type-options']).toBe('nosniff');
    expect(answer.headers['cache-control']).toContain('immutable');
    expect(answer.headers['x-request-id']).toBeTruthy();
  });

  it('prefers brotli when the client takes both, as browsers do', async () => {
    const answer = await get(url + scriptPath, { 'accept-encoding': 'gzip, deflate, br, zstd' });
    expect(answer.headers['content-encoding']).toBe('br');
    expect(decode(answer).equals(script)).toBe(true);
  });

  it('serves the file as it is without Accept-Encoding, still saying that the answer varies on it', async () => {
    const answer = await get(url + scriptPath);
    expect(answer.status).toBe(200);
    expect(answer.headers['content-encoding']).toBeUndefined();
    expect(answer.body.equals(script)).toBe(true);
    expect(Number(answer.headers['content-length'])).toBe(script.length);
    expect(varyOn(answer)).toContain('accept-encoding');
    const identity = await get(url + scriptPath, { 'accept-encoding': 'identity' });
    expect(identity.headers['content-encoding']).toBeUndefined();
    expect(identity.body.equals(script)).toBe(true);
  });

  it('gives each encoding its own ETag, and answers 304 to a revalidation of the same one', async () => {
    const br = await get(url + scriptPath, { 'accept-encoding': 'br' });
    const gzip = await get(url + scriptPath, { 'accept-encoding': 'gzip' });
    const identity = await get(url + scriptPath);
    const tags = [br, gzip, identity].map((a) => a.headers['etag']);
    expect(new Set(tags).size).toBe(3);
    const again = await get(url + scriptPath, { 'accept-encoding': 'br', 'if-none-match': String(br.headers['etag']) });
    expect(again.status).toBe(304);
    const otherEncoding = await get(url + scriptPath, { 'accept-encoding': 'gzip', 'if-none-match': String(br.headers['etag']) });
    expect(otherEncoding.status).toBe(200);
    expect(otherEncoding.headers['content-encoding']).toBe('gzip');
  });

  it("keeps the console page's security headers when the client asks for compression", async () => {
    const answer = await get(url + '/console/queues', { 'accept-encoding': 'br, gzip' });
    expect(answer.status).toBe(200);
    expect(answer.headers['content-security-policy']).toContain("default-src 'self'");
    expect(answer.headers['x-frame-options']).toBe('DENY');
    expect(answer.headers['x-content-type-options']).toBe('nosniff');
    expect(answer.headers['referrer-policy']).toBe('no-referrer');
    expect(decode(answer).toString()).toContain('<div id="root">');
  });

  it.each(['br', 'gzip'])('compresses a large JSON answer (%s), which decodes to the same JSON', async (encoding) => {
    const plain = await get(url + '/test/rows?n=400');
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.body.length).toBeGreaterThan(20_000);
    // Sent as it is, but it would not have been to another client: a cache must know.
    expect(varyOn(plain)).toContain('accept-encoding');
    const answer = await get(url + '/test/rows?n=400', { 'accept-encoding': encoding });
    expect(answer.status).toBe(200);
    expect(answer.headers['content-encoding']).toBe(encoding);
    expect(answer.headers['content-type']).toMatch(/^application\/json/);
    expect(varyOn(answer)).toContain('accept-encoding');
    expect(answer.headers['x-request-id']).toBeTruthy();
    if (answer.headers['content-length'] !== undefined) expect(Number(answer.headers['content-length'])).toBe(answer.body.length);
    expect(answer.body.length).toBeLessThan(plain.body.length / 5);
    expect(JSON.parse(decode(answer).toString())).toEqual(JSON.parse(plain.body.toString()));
  });

  it('leaves a small JSON answer as it is', async () => {
    const answer = await get(url + '/test/rows?n=2', { 'accept-encoding': 'br, gzip' });
    expect(answer.status).toBe(200);
    expect(answer.headers['content-encoding']).toBeUndefined();
    expect(answer.body.length).toBeLessThan(1024);
    expect(Number(answer.headers['content-length'])).toBe(answer.body.length);
    expect(JSON.parse(answer.body.toString()).data).toHaveLength(2);
  });

  it('still streams an NDJSON answer (as the audit export), compressed, every line intact', async () => {
    const answer = await get(url + '/test/lines', { 'accept-encoding': 'gzip' });
    expect(answer.status).toBe(200);
    expect(answer.headers['content-encoding']).toBe('gzip');
    expect(answer.headers['content-length']).toBeUndefined();
    expect(answer.headers['transfer-encoding']).toBe('chunked');
    expect(decode(answer).toString()).toBe(expectedLines());
    expect(varyOn(answer)).toEqual(['accept-encoding']);
    const plain = await get(url + '/test/lines');
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(varyOn(plain)).toEqual(['accept-encoding']);
    expect(plain.body.toString()).toBe(expectedLines());
  });

  it('does not decompress request bodies: a gzip-encoded body is refused, not inflated past the body limits', async () => {
    const body = gzipSync(JSON.stringify({ hello: 'world' }));
    const answer = await new Promise<RawAnswer>((resolve, reject) => {
      const headers = { 'content-type': 'application/json', 'content-encoding': 'gzip', 'content-length': String(body.length) };
      const req = request(url + '/test/echo', { method: 'POST', headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      });
      req.on('error', reject);
      req.end(body);
    });
    expect(answer.status).toBe(400);
    const plain = await fetch(url + '/test/echo', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"hello":"world"}' });
    expect(plain.status).toBe(201);
  });
});
