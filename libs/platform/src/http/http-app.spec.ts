import 'reflect-metadata';
import { createHash } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { get as httpGet, type IncomingHttpHeaders } from 'node:http';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { join } from 'node:path';
import { Body, Controller, Get, Global, Module, Param, Post, Req } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { IsString, MinLength, ValidateNested, IsArray } from 'class-validator';
import { Type } from 'class-transformer';
import type { FastifyRequest } from 'fastify';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { expectErrorBody } from '../../../../test/support/error-body.js';
import { waitFor } from '../../../../test/support/wait-for.js';
import { Public } from '../auth/principal.js';
import { loadConfig } from '../config/warden-config.js';
import { createRootLogger } from '../observability/logger.js';
import { PlatformModule } from '../platform.module.js';
import { PlatformHttpModule } from '../platform-http.module.js';
import { READINESS_CHECKS } from '../observability/readiness.js';
import { createHttpApp } from './http-app.js';
import { PublicBodyLimit } from './public-body-limit.js';
import { DOCUMENT_WORK } from '../openapi/served-document.js';

class ItemDto {
  @IsString()
  @MinLength(1)
  id!: string;
}

class EchoDto {
  @IsArray()
  @ValidateNested({ each: true })
  @Type(() => ItemDto)
  items!: ItemDto[];
}

@Controller('test')
@Public()
class ProbeController {
  @Post('echo')
  echo(@Body() body: EchoDto): EchoDto {
    return body;
  }

  /** As a sign-in route: reached without a credential. */
  @Post('public')
  @PublicBodyLimit()
  signIn(@Body() body: EchoDto): EchoDto {
    return body;
  }

  @Get('things/:thingId')
  thing(@Param('thingId') thingId: string): { thingId: string } {
    return { thingId };
  }

  /** The query as the router read it. */
  @Get('query')
  query(@Req() request: FastifyRequest): Record<string, unknown> {
    return { ...(request.query as Record<string, unknown>) };
  }

  @Get('boom')
  boom(): never {
    throw new Error('database password is hunter2');
  }
}

/** The HTTP platform with `controller` instead of the domain, listening on a loopback port. */
async function probeApp(
  controller: new (...args: never[]) => unknown,
  env: Record<string, string> = {},
): Promise<{ app: NestFastifyApplication; port: number }> {
  const config = loadConfig({ WARDEN_DATA_DIR: mkdtempSync(join(tmpdir(), 'warden-http-')), WARDEN_LOG_LEVEL: 'silent', ...env });
  // No stores here: readiness has nothing to check (global, as the storage module that provides them is).
  @Global()
  @Module({ providers: [{ provide: READINESS_CHECKS, useValue: [] }], exports: [READINESS_CHECKS] })
  class NoStoresModule {}
  @Module({ imports: [PlatformModule.forRoot(config), PlatformHttpModule, NoStoresModule], controllers: [controller] })
  class ProbeModule {}
  const app = await createHttpApp(ProbeModule, config, createRootLogger('silent'), 'test');
  await app.listen({ port: 0, host: '127.0.0.1' });
  return { app, port: (app.getHttpServer().address() as { port: number }).port };
}

/** The HTTP platform on a real loopback port, with a probe module instead of the domain. */
describe('HTTP platform', () => {
  let app: NestFastifyApplication;
  let url: string;
  let close: () => Promise<void>;

  beforeAll(async () => {
    close = async () => undefined;
    let port: number;
    ({ app, port } = await probeApp(ProbeController));
    url = `http://127.0.0.1:${port}`;
  });
  afterAll(async () => {
    await app?.close();
    await close?.();
  });

  const post = (path: string, body: string, contentType?: string) =>
    fetch(url + path, { method: 'POST', body, headers: contentType ? { 'content-type': contentType } : {} });

  it('accepts a JSON body on a POST route', async () => {
    const res = await post('/test/echo', JSON.stringify({ items: [{ id: 'a' }] }), 'application/json');
    expect(res.status).toBe(201);
    expect(await res.json()).toEqual({ items: [{ id: 'a' }] });
  });

  it('reports each failing field once, with a JSON pointer', async () => {
    const res = await post('/test/echo', JSON.stringify({ items: [{ id: 'a' }, { id: '' }, { id: 3 }] }), 'application/json');
    const body = (await res.clone().json()) as { errors: Array<{ pointer: string }> };
    await expectErrorBody(res, 400, '/errors/invalid-user-input');
    expect(body.errors.map((e) => e.pointer)).toEqual(['/items/1/id', '/items/2/id']);
  });

  it('answers 400 for malformed JSON and 415 for a body that is not JSON', async () => {
    await expectErrorBody(await post('/test/echo', '{"items": [', 'application/json'), 400, '/errors/invalid-user-input', '');
    await expectErrorBody(await post('/test/echo', 'items=1', 'application/x-www-form-urlencoded'), 415, '/errors/unsupported-media-type');
    await expectErrorBody(await post('/test/echo', 'hello', 'text/plain'), 415, '/errors/unsupported-media-type');
  });

  it('checks the limits of a parsed body before validation walks it (WARDEN_MAX_JSON_DEPTH, WARDEN_MAX_STRING_BYTES)', async () => {
    const deep = `{"items":[{"id":"a"}],"extra":${'['.repeat(1500)}${']'.repeat(1500)}}`;
    const tooDeep = await expectErrorBody(await post('/test/echo', deep, 'application/json'), 400, '/errors/invalid-user-input', `/extra${'/0'.repeat(63)}`);
    expect(tooDeep['detail']).toBe('nested more than 64 levels deep (objects and arrays; the body is level 1)');
    const long = JSON.stringify({ items: [{ id: 'é'.repeat(131_073) }] });
    const tooLong = await expectErrorBody(await post('/test/echo', long, 'application/json'), 413, '/errors/payload-too-large', '/items/0/id');
    expect(tooLong['detail']).toBe('the string has 262146 bytes; at most 262144 bytes (UTF-8) per string');
    await expectErrorBody(await post('/test/echo', '{"items":[{"id":"a\\udc00"}]}', 'application/json'), 400, '/errors/invalid-user-input', '/items/0/id');
    const proto = await expectErrorBody(
      await post('/test/echo', '{"items":[{"id":"a","__proto__":{}}]}', 'application/json'),
      400,
      '/errors/invalid-user-input',
      '/items/0/__proto__',
    );
    expect(proto['title']).toBe('Invalid request');
    expect(proto['detail']).toContain('"__proto__" is not accepted');
  });

  it('refuses an object of more members than WARDEN_MAX_OBJECT_MEMBERS before validation, pointing at it (issue 30)', async () => {
    const members = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`m${i}`, i]));
    const ok = await post('/test/echo', JSON.stringify({ items: [{ id: 'a' }], extra: members(10_000) }), 'application/json');
    expect(ok.status).toBe(201);
    const wide = JSON.stringify({ items: [{ id: 'a' }], extra: members(10_001) });
    const tooWide = await expectErrorBody(await post('/test/echo', wide, 'application/json'), 413, '/errors/payload-too-large', '/extra');
    expect(tooWide['detail']).toBe('the object has 10001 members; at most 10000 members per object');
    // The body itself is an object too.
    await expectErrorBody(await post('/test/echo', JSON.stringify(members(240_000)), 'application/json'), 413, '/errors/payload-too-large', '');
  });

  it('reads the body of a route reached without a credential under WARDEN_PUBLIC_BODY_LIMIT_BYTES (64 KiB), before parsing it', async () => {
    const small = JSON.stringify({ items: [{ id: 'a'.repeat(60_000) }] });
    expect((await post('/test/public', small, 'application/json')).status).toBe(201);
    const big = JSON.stringify({ items: [{ id: 'a'.repeat(70_000) }] });
    expect((await post('/test/echo', big, 'application/json')).status).toBe(201);
    const refused = await expectErrorBody(await post('/test/public', big, 'application/json'), 413, '/errors/payload-too-large');
    expect(refused['detail']).toBe('The request body exceeds the limit of 65536 bytes');
    // Not JSON at all: refused while reading, whatever it holds (the parser never sees it).
    const junk = await expectErrorBody(await post('/test/public', '['.repeat(3_000_000), 'application/json'), 413, '/errors/payload-too-large');
    expect(junk['detail']).toBe('The request body exceeds the limit of 65536 bytes');
  });

  it('keeps what the previous parser accepted: a leading byte order mark, and a Content-Type with a charset', async () => {
    expect((await post('/test/echo', '\ufeff{"items":[{"id":"a"}]}', 'application/json')).status).toBe(201);
    expect((await post('/test/echo', '{"items":[{"id":"a"}]}', 'application/json; charset=utf-8')).status).toBe(201);
    await expectErrorBody(await post('/test/echo', '', 'application/json'), 400, '/errors/invalid-user-input', '');
  });

  it('refuses bytes that are not UTF-8 and a charset other than UTF-8, rather than reading them with U+FFFD', async () => {
    const bytes = Buffer.concat([Buffer.from('{"items":[{"id":"a'), Buffer.from([0xff]), Buffer.from('"}]}')]);
    const invalid = await fetch(url + '/test/echo', { method: 'POST', body: bytes, headers: { 'content-type': 'application/json' } });
    const notUtf8 = await expectErrorBody(invalid, 400, '/errors/invalid-user-input', '');
    expect(notUtf8['detail']).toBe('The request body is not well-formed UTF-8');
    await expectErrorBody(await post('/test/echo', '{"items":[{"id":"a"}]}', 'application/json; charset=utf-16le'), 415, '/errors/unsupported-media-type');
    expect((await post('/test/echo', '{"items":[{"id":"a"}]}', 'application/json; charset="UTF-8"')).status).toBe(201);
  });

  it('answers 500 without leaking the message or a stack trace', async () => {
    const res = await fetch(url + '/test/boom');
    const text = await res.clone().text();
    await expectErrorBody(res, 500, '/errors/internal');
    expect(text).not.toContain('hunter2');
    expect(text).not.toContain('stack');
  });

  it('answers a path the router cannot read (bad percent-encoding, a parameter past its length limit) with 404 and the error body', async () => {
    expect(await (await fetch(url + '/test/things/abc%20d')).json()).toEqual({ thingId: 'abc d' });
    const badEncoding = await expectErrorBody(await fetch(url + '/test/things/%zz'), 404, '/errors/not-found');
    expect(badEncoding['detail']).toBe('The path is not valid percent-encoded UTF-8, so it names nothing');
    await expectErrorBody(await fetch(url + '/test/things/%ED%A0%80'), 404, '/errors/not-found');
    // The longest id there is (256 UTF-16 units) is routed, however long percent-encoded (nine characters a `€`).
    const longestId = '€'.repeat(256);
    expect(await (await fetch(url + `/test/things/${encodeURIComponent(longestId)}`)).json()).toEqual({ thingId: longestId });
    expect(await (await fetch(url + `/test/things/${'x'.repeat(256)}`)).json()).toEqual({ thingId: 'x'.repeat(256) });
    const long = await expectErrorBody(await fetch(url + `/test/things/${'x'.repeat(9 * 256 + 1)}`), 404, '/errors/not-found');
    expect(long['detail']).toBe('A path parameter is longer than any id (256 characters at most)');
  });

  it("answers what Node's parser refuses before routing (headers over 16 KiB, bytes that are not HTTP) with the error body and a request id", async () => {
    const answer = await fetch(url + '/health/live', { headers: { 'x-padding': 'a'.repeat(20_000) } });
    const body = await expectErrorBody(answer, 431, '/errors/request-header-fields-too-large');
    expect(body['requestId']).toMatch(/^[0-9a-f-]{36}$/);
    expect(answer.headers.get('x-request-id')).toBe(body['requestId']);

    const raw = await new Promise<string>((resolve) => {
      const socket = connect(Number(new URL(url).port), '127.0.0.1');
      let received = '';
      socket.on('data', (chunk: Buffer) => (received += chunk.toString()));
      socket.on('close', () => resolve(received));
      socket.on('error', () => undefined);
      socket.write('NOT HTTP AT ALL\r\n\r\n');
    });
    const [head, text] = raw.split('\r\n\r\n') as [string, string];
    expect(head).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    expect(head).toMatch(/\r\nX-Request-Id: [0-9a-f-]{36}(\r\n|$)/);
    expect(JSON.parse(text)).toEqual({
      errors: [
        {
          status: 400,
          type: ['/errors/invalid-user-input'],
          title: 'Malformed HTTP request',
          detail: 'The request is not well-formed HTTP/1.1',
          requestId: expect.stringMatching(/^[0-9a-f-]{36}$/),
        },
      ],
    });
  });

  it('refuses a query string that is not valid percent-encoded UTF-8 on every route, with 400 pointing at the parameter (issue 30)', async () => {
    expect(await (await fetch(url + '/test/query?id=%C3%A9+x&tag=a&tag=b&sign=%2B1')).json()).toEqual({ id: 'é x', tag: ['a', 'b'], sign: '+1' });
    // A lone surrogate was read as U+FFFD, and a malformed escape kept as text: either named another id.
    const surrogate = await expectErrorBody(await fetch(url + '/test/query?ok=1&id=%ED%A0%80'), 400, '/errors/invalid-user-input', '/id');
    expect(surrogate['detail']).toBe('The query parameter is not valid percent-encoded UTF-8');
    await expectErrorBody(await fetch(url + '/test/query?id=%zz'), 400, '/errors/invalid-user-input', '/id');
    // Routes that read no query at all, a POST, and the health check refuse it too.
    await expectErrorBody(await fetch(url + '/test/things/a?x=%FF'), 400, '/errors/invalid-user-input', '/x');
    await expectErrorBody(
      await post('/test/echo?a%2Fb=%C0%AF', JSON.stringify({ items: [{ id: 'a' }] }), 'application/json'),
      400,
      '/errors/invalid-user-input',
      '/a~1b',
    );
    await expectErrorBody(await fetch(url + '/health/live?x=%E2%82'), 400, '/errors/invalid-user-input', '/x');
  });

  it('answers 404 with the error body for what the static files under /docs do not have, not 405 (issue 30)', async () => {
    expect((await fetch(url + '/docs')).status).toBe(200);
    expect((await fetch(url + '/docs/swagger-ui.css')).status).toBe(200);
    for (const path of ['/docs/docs/x', '/docs/x', '/docs/LICENSE', '/docs/docs/swagger-ui.css', '/docs/x/y/z.js']) {
      const missing = await expectErrorBody(await fetch(url + path), 404, '/errors/not-found');
      expect(missing['detail']).toBe(`Nothing at ${path}`);
      expect((await fetch(url + path, { method: 'HEAD' })).status).toBe(404);
    }
    // A method the path does not take is still a 405 naming the ones it does.
    const wrongMethod = await fetch(url + '/docs/docs/x', { method: 'DELETE' });
    expect(wrongMethod.headers.get('allow')).toBe('GET');
    await expectErrorBody(wrongMethod, 405, '/errors/method-not-allowed');
  });

  it('serves Swagger UI under /docs with a strict Content-Security-Policy that allows its inline styles by hash and nothing inline else (issue 30)', async () => {
    const sha256 = (text: string) => `'sha256-${createHash('sha256').update(text).digest('base64')}'`;
    for (const path of ['/docs', '/docs/', '/docs/index.html']) {
      const page = await fetch(url + path);
      expect(page.status).toBe(200);
      const html = await page.text();
      const policy = new Map(
        (page.headers.get('content-security-policy') ?? '').split(';').map((d) => {
          const [name, ...sources] = d.trim().split(/\s+/);
          return [name!, sources] as const;
        }),
      );
      expect(policy.get('default-src')).toEqual(["'none'"]);
      expect(policy.get('script-src')).toEqual(["'self'"]);
      expect(policy.get('frame-ancestors')).toEqual(["'none'"]);
      expect(policy.get('connect-src')).toEqual(["'self'"]);
      const styles = policy.get('style-src') ?? [];
      expect(styles).not.toContain("'unsafe-inline'");
      // Every inline style of the page is allowed by its hash (no inline script is at all: every <script> has a src).
      const inline = [...html.matchAll(/<style>([\s\S]*?)<\/style>/g), ...html.matchAll(/ style="([^"]*)"/g)].map((m) => m[1]!);
      expect(inline.length).toBeGreaterThan(0);
      for (const text of inline) expect(styles).toContain(sha256(text));
      expect([...html.matchAll(/<script\b([^>]*)>/g)].every((m) => /\ssrc=/.test(m[1]!))).toBe(true);
      expect(page.headers.get('x-content-type-options')).toBe('nosniff');
      expect(page.headers.get('x-frame-options')).toBe('DENY');
      expect(page.headers.get('referrer-policy')).toBe('no-referrer');
    }
    // Its scripts, stylesheet and files carry it too: an HTML file among them (oauth2-redirect.html) runs no inline script.
    for (const path of ['/docs/swagger-ui-init.js', '/docs/swagger-ui-bundle.js', '/docs/swagger-ui.css', '/docs/oauth2-redirect.html']) {
      const file = await fetch(url + path);
      expect(file.status).toBe(200);
      expect(file.headers.get('content-security-policy')).toMatch(/^default-src 'none'; script-src 'self'; style-src 'self';/);
      // Read to the end: an unread body of a megabyte holds its connection open, and the server's
      // close in afterAll then waits (about 25 s) for the client to give it up.
      await file.arrayBuffer();
    }
  });

  it('serializes the OpenAPI document once per format and compresses it once per coding, answering the same bytes and ETag to every request', async () => {
    /** The raw answer, as sent (fetch would decode it). */
    const raw = (path: string, headers: Record<string, string>) =>
      new Promise<{ status: number; headers: IncomingHttpHeaders; body: Buffer }>((resolve, reject) => {
        httpGet(url + path, { headers }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
        }).on('error', reject);
      });
    const isTheDocument = (value: unknown) => typeof value === 'object' && value !== null && 'openapi' in value && 'paths' in value;
    const stringify = vi.spyOn(JSON, 'stringify');
    const serialize = vi.spyOn(DOCUMENT_WORK, 'serialize');
    const compress = vi.spyOn(DOCUMENT_WORK, 'compress');
    try {
      for (const [path, type] of [
        ['/openapi.json', 'application/json; charset=utf-8'],
        ['/openapi.yaml', 'text/yaml'],
      ] as const) {
        const sent = new Map<string, { body: Buffer; etag: string }>();
        for (let round = 0; round < 4; round++) {
          for (const [coding, accept] of [
            ['br', 'br, gzip'],
            ['gzip', 'gzip'],
            ['identity', ''],
          ] as const) {
            const answer = await raw(path, accept ? { 'accept-encoding': accept } : {});
            expect(answer.status).toBe(200);
            expect(answer.headers['content-type']).toBe(type);
            expect(answer.headers['content-encoding']).toBe(coding === 'identity' ? undefined : coding);
            expect(answer.headers['vary']).toBe('accept-encoding');
            expect(answer.headers['x-content-type-options']).toBe('nosniff');
            const etag = String(answer.headers['etag']);
            const first = sent.get(coding) ?? { body: answer.body, etag };
            sent.set(coding, first);
            expect(answer.body.equals(first.body)).toBe(true);
            expect(etag).toBe(first.etag);
          }
        }
        const identity = sent.get('identity')!.body;
        expect(brotliDecompressSync(sent.get('br')!.body).equals(identity)).toBe(true);
        expect(gunzipSync(sent.get('gzip')!.body).equals(identity)).toBe(true);
        expect(new Set([...sent.values()].map((s) => s.etag)).size).toBe(3);
        // A revalidation of what the client has is a 304 without the body; of another coding's tag, the answer.
        const again = await raw(path, { 'accept-encoding': 'br', 'if-none-match': sent.get('br')!.etag });
        expect([again.status, again.body.length, again.headers['etag']]).toEqual([304, 0, sent.get('br')!.etag]);
        expect((await raw(path, { 'accept-encoding': 'gzip', 'if-none-match': sent.get('br')!.etag })).status).toBe(200);
      }
      // No earlier test asks for the document; 30 answers of each format, one serialization and one compression per coding.
      expect(stringify.mock.calls.filter(([value]) => isTheDocument(value))).toHaveLength(1);
      expect(serialize.mock.calls.map(([format]) => format).sort()).toEqual(['json', 'yaml']);
      expect(compress.mock.calls.map(([coding]) => coding).sort()).toEqual(['br', 'br', 'gzip', 'gzip']);
    } finally {
      stringify.mockRestore();
      serialize.mockRestore();
      compress.mockRestore();
    }
  });

  it('has Swagger UI at /docs read the document from /openapi.json, not carry it in its init script', async () => {
    const init = await (await fetch(url + '/docs/swagger-ui-init.js')).text();
    expect(init).toContain('"swaggerUrl": "/openapi.json"');
    expect(init).toContain('"swaggerDoc": {}');
  });

  it('answers a GET without any Content-Type', async () => {
    expect((await fetch(url + '/health/live')).status).toBe(200);
  });

  it("marks every answer nosniff, and the console's as never to be cached (personal data, the CSRF token)", async () => {
    const consoleAnswer = await fetch(url + '/api/console/v1/jobs/anything');
    expect(consoleAnswer.headers.get('cache-control')).toBe('no-store');
    expect(consoleAnswer.headers.get('x-content-type-options')).toBe('nosniff');
    const other = await fetch(url + '/test/things/1');
    expect(other.headers.get('x-content-type-options')).toBe('nosniff');
    expect(other.headers.get('cache-control')).toBeNull();
  });
});

/** Whatever arrives while the server drains gets the error body (docs/api.md, "Errors") too, not Fastify's own. */
describe('HTTP platform, shutting down', () => {
  let entered!: () => void;
  const inFlight = new Promise<void>((resolve) => (entered = resolve));
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));

  @Controller('test')
  @Public()
  class SlowController {
    @Get('slow')
    async slow(): Promise<{ done: true }> {
      entered();
      await gate;
      return { done: true };
    }
  }

  it('answers a request that arrives during the drain with 503 and the error body', async () => {
    const { app, port } = await probeApp(SlowController);

    // One keep-alive connection: a request in flight, then a second one pipelined behind it
    // once the server has begun to close (it no longer accepts connections then).
    const socket = connect(port, '127.0.0.1');
    let received = '';
    socket.on('data', (chunk: Buffer) => (received += chunk.toString()));
    const ended = new Promise<void>((resolve) => socket.on('close', () => resolve()));
    socket.write('GET /test/slow HTTP/1.1\r\nHost: warden\r\n\r\n');
    await inFlight;
    const closed = app.close();
    await waitFor(
      () =>
        fetch(`http://127.0.0.1:${port}/health/live`).then(
          () => false,
          () => true,
        ),
      'the server to stop accepting',
    );
    socket.write('GET /health/live HTTP/1.1\r\nHost: warden\r\nX-Request-Id: drain-1\r\n\r\n');
    release();
    await ended;
    await closed;

    const responses = received.split(/(?=HTTP\/1\.1 \d{3} )/);
    expect(responses).toHaveLength(2);
    expect(responses[0]).toMatch(/^HTTP\/1\.1 200 /);
    const [head, body] = responses[1]!.split('\r\n\r\n') as [string, string];
    const [statusLine, ...headerLines] = head.split('\r\n');
    const headers = new Headers(headerLines.map((line) => line.split(/: (.*)/s).slice(0, 2) as [string, string]));
    const response = new Response(body, { status: Number(statusLine!.split(' ')[1]), headers });
    expect(headers.get('connection')).toBe('close');
    expect(headers.get('x-request-id')).toBe('drain-1');
    await expectErrorBody(response, 503, '/errors/unavailable');
  });
});

/** Connections that send little or nothing (docs/operations.md, "Connections"). */
describe('HTTP platform: held connections', () => {
  let app: NestFastifyApplication;
  let port: number;

  beforeAll(async () => {
    ({ app, port } = await probeApp(ProbeController, { WARDEN_REQUEST_TIMEOUT: '1s', WARDEN_MAX_CONNECTIONS_PER_CLIENT: '3' }));
  });
  afterAll(async () => {
    await app?.close();
  });

  /** A raw connection: what it received, and whether it was closed by the server. */
  const rawConnection = async () => {
    const socket = connect(port, '127.0.0.1');
    const state = { received: '', closed: false };
    socket.on('data', (chunk: Buffer) => (state.received += chunk.toString()));
    socket.on('close', () => (state.closed = true));
    socket.on('error', () => undefined);
    await new Promise((resolve) => socket.once('connect', resolve));
    return { socket, state };
  };

  it('closes a connection whose request does not arrive whole within WARDEN_REQUEST_TIMEOUT, answering 408', async () => {
    const { state } = await rawConnection().then((c) => {
      // The headers of a 200,000-byte form, then a few bytes of it, then nothing (a slow-body attack).
      c.socket.write('POST /test/echo HTTP/1.1\r\nHost: warden\r\nContent-Type: application/json\r\nContent-Length: 200000\r\n\r\n{"items":');
      return c;
    });
    await waitFor(() => state.closed, { what: 'the connection closed by the server', timeoutMs: 15_000 });
    expect(state.received).toMatch(/^HTTP\/1\.1 408 /);
  });

  it("refuses a client network's connections past WARDEN_MAX_CONNECTIONS_PER_CLIENT as they come, and takes one again once one closes", async () => {
    const held = await Promise.all([rawConnection(), rawConnection(), rawConnection()]);
    const refused = await rawConnection();
    await waitFor(() => refused.state.closed, 'the fourth connection closed');
    expect(refused.state.received).toBe('');
    expect(held.every((c) => !c.state.closed)).toBe(true);
    held[0]!.socket.destroy();
    await waitFor(async () => (await fetch(`http://127.0.0.1:${port}/health/live`).catch(() => undefined))?.status === 200, 'a new connection served');
    for (const c of held) c.socket.destroy();
  });

  it('caps no connection from a trusted proxy, its range written IPv4-mapped as well', async () => {
    const proxied = await probeApp(ProbeController, { WARDEN_MAX_CONNECTIONS_PER_CLIENT: '1', WARDEN_TRUSTED_PROXIES: '::ffff:127.0.0.0/104' });
    try {
      const sockets = await Promise.all(
        [0, 1].map(async () => {
          const socket = connect(proxied.port, '127.0.0.1').on('error', () => undefined);
          await new Promise((resolve) => socket.once('connect', resolve));
          return socket;
        }),
      );
      // A third connection, past a cap of one, is served.
      expect((await fetch(`http://127.0.0.1:${proxied.port}/health/live`)).status).toBe(200);
      expect(sockets.every((s) => !s.destroyed)).toBe(true);
      for (const s of sockets) s.destroy();
    } finally {
      await proxied.app.close();
    }
  });
});
