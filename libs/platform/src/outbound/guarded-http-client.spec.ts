import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { type AddressInfo, connect, type Socket } from 'node:net';
import { Worker } from 'node:worker_threads';
import ipaddr from 'ipaddr.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../../../../test/support/wait-for.js';
import { GuardedHttpClient, OutboundAddressPolicy, OutboundError, type OutboundRequest } from './guarded-http-client.js';

interface TestServer {
  server: Server;
  port: number;
  base: string;
  requests: IncomingMessage[];
}

type Handler = (req: IncomingMessage, res: ServerResponse, server: TestServer) => void;

async function listen(host: string, handler: Handler): Promise<TestServer> {
  const requests: IncomingMessage[] = [];
  const server = createServer();
  const ts = { server, port: 0, base: '', requests } as TestServer;
  server.on('request', (req, res) => {
    requests.push(req);
    handler(req, res, ts);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, host, () => resolve());
  });
  ts.port = (server.address() as AddressInfo).port;
  ts.base = `http://${host.includes(':') ? `[${host}]` : host}:${ts.port}`;
  return ts;
}

async function stop(ts: TestServer | undefined): Promise<void> {
  if (ts === undefined) return;
  ts.server.closeAllConnections();
  await new Promise<void>((resolve) => ts.server.close(() => resolve()));
}

async function failure(promise: Promise<unknown>): Promise<OutboundError> {
  try {
    await promise;
  } catch (err) {
    expect(err).toBeInstanceOf(OutboundError);
    return err as OutboundError;
  }
  throw new Error('expected the request to fail');
}

/** Counts client sockets Node creates (net.connect), to prove none was opened. */
function countSockets(): { readonly count: number; stop(): void } {
  let count = 0;
  const onSocket = (): void => {
    count++;
  };
  subscribe('net.client.socket', onSocket);
  return {
    get count() {
      return count;
    },
    stop: () => unsubscribe('net.client.socket', onSocket),
  };
}

/** The client sockets Node creates (net.connect) while it runs, to look at their state. */
function watchSockets(): { readonly sockets: readonly Socket[]; stop(): void } {
  const sockets: Socket[] = [];
  const onSocket = (message: unknown): void => {
    sockets.push((message as { socket: Socket }).socket);
  };
  subscribe('net.client.socket', onSocket);
  return { sockets, stop: () => unsubscribe('net.client.socket', onSocket) };
}

/**
 * A host that never completes the TCP handshake, like a blackholed address: a listener on
 * 127.0.0.1 whose accept queue is full. Linux holds `backlog + 1` unaccepted connections and drops
 * every further SYN, so a later connection attempt stays in SYN_SENT. The listener lives in a
 * worker whose event loop is kept blocked, so nothing ever accepts; two connections (backlog 1)
 * fill its queue before the host is handed out.
 */
async function unreachableHost(): Promise<{ base: string; release(): Promise<void> }> {
  const blocked = new Int32Array(new SharedArrayBuffer(4));
  const worker = new Worker(
    `const { parentPort, workerData } = require('node:worker_threads');
     const server = require('node:net').createServer();
     server.listen({ port: 0, host: '127.0.0.1', backlog: 1 }, () => {
       parentPort.postMessage(server.address().port);
       Atomics.wait(workerData, 0, 0);
     });`,
    { eval: true, workerData: blocked },
  );
  const [port] = (await once(worker, 'message')) as [number];
  const fillers: Socket[] = [];
  for (let i = 0; i < 2; i++) {
    const filler = connect(port, '127.0.0.1').on('error', () => undefined);
    fillers.push(filler);
    await once(filler, 'connect');
  }
  return {
    base: `http://127.0.0.1:${port}`,
    release: async () => {
      Atomics.store(blocked, 0, 1);
      Atomics.notify(blocked, 0);
      await worker.terminate();
      for (const filler of fillers) filler.destroy();
    },
  };
}

/**
 * A receiver on its own thread that answers a request only once this thread's event loop is held
 * (`hold`), so that its answer arrives while nothing here can read it: as a receiver's 200 does
 * when the thread sending callbacks stalls. `hold` blocks this thread until the answer is written
 * and until `ms` have passed since `since`.
 */
async function answerWhileHeld(): Promise<{ base: string; received(): boolean; hold(since: number, ms: number): void; close(): Promise<void> }> {
  // [received, held, answered]
  const flags = new Int32Array(new SharedArrayBuffer(12));
  const worker = new Worker(
    `const { parentPort, workerData: flags } = require('node:worker_threads');
     const server = require('node:http').createServer((req, res) => {
       Atomics.store(flags, 0, 1);
       Atomics.wait(flags, 1, 0, 10000);
       res.on('finish', () => { Atomics.store(flags, 2, 1); Atomics.notify(flags, 2); });
       res.end('ok');
     });
     server.listen(0, '127.0.0.1', () => parentPort.postMessage(server.address().port));`,
    { eval: true, workerData: flags },
  );
  const [port] = (await once(worker, 'message')) as [number];
  return {
    base: `http://127.0.0.1:${port}`,
    received: () => Atomics.load(flags, 0) === 1,
    hold: (since, ms) => {
      Atomics.store(flags, 1, 1);
      Atomics.notify(flags, 1);
      Atomics.wait(flags, 2, 0, 10_000);
      while (performance.now() - since < ms);
    },
    close: async () => {
      await worker.terminate();
    },
  };
}

/** Waits (generously) until the client has dropped the connection a request came in on. */
async function closedByClient(req: IncomingMessage): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!req.socket.destroyed) {
    if (Date.now() > deadline) throw new Error('the client never closed the connection');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

const readBody = (req: IncomingMessage): Promise<string> =>
  new Promise((resolve) => {
    let text = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (text += c));
    req.on('end', () => resolve(text));
  });

/** The main test server on 127.0.0.1; routes by path. */
const app: Handler = (req, res, self) => {
  const url = new URL(req.url ?? '/', 'http://x');
  const path = url.pathname;
  if (path === '/hello') {
    res.setHeader('x-answer', '42');
    res.end('hello world');
  } else if (path === '/echo') {
    void readBody(req).then((text) => {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ method: req.method, body: text, headers: req.headers }));
    });
  } else if (path === '/fail') {
    res.statusCode = 500;
    res.end('boom');
  } else if (path.startsWith('/chain/')) {
    const n = Number(path.slice('/chain/'.length));
    if (n === 0) {
      res.end('end of chain');
    } else {
      res.statusCode = 302;
      res.setHeader('location', `/chain/${n - 1}`);
      res.end();
    }
  } else if (path === '/redirect') {
    const to = url.searchParams.get('to') ?? '/hello';
    res.statusCode = Number(url.searchParams.get('status') ?? '302');
    res.setHeader('location', to);
    res.end();
  } else if (path === '/redirect-big') {
    // A redirect with a body past the 64 KiB the client reads of it.
    res.writeHead(302, { location: '/hello', 'content-type': 'application/octet-stream' });
    for (let i = 0; i < 8; i++) res.write(Buffer.alloc(16 * 1024, 3));
    res.end();
  } else if (path === '/informational') {
    res.writeProcessing();
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.end('after 102');
  } else if (path === '/early-hints') {
    // An informational answer whose headers would refuse a final one (a length past any limit): not the response.
    res.writeEarlyHints({ link: '</style.css>; rel=preload; as=style', 'content-length': String(64 * 1024 * 1024) });
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.end('after 103');
  } else if (path === '/hang') {
    // never answers
  } else if (path === '/hang-body') {
    res.writeHead(200, { 'content-length': '100' });
    res.write('partial');
  } else if (path === '/big-declared') {
    res.writeHead(200, { 'content-length': String(1024 * 1024) });
    res.end(Buffer.alloc(1024 * 1024, 1));
  } else if (path === '/big-chunked') {
    // no content-length: the limit has to be enforced while streaming
    res.writeHead(200, { 'content-type': 'application/octet-stream' });
    for (let i = 0; i < 64; i++) res.write(Buffer.alloc(16 * 1024, 2));
    res.end();
  } else {
    res.statusCode = 404;
    res.end(`no route ${path} on ${self.port}`);
  }
};

describe('GuardedHttpClient', () => {
  let main: TestServer;
  let client: GuardedHttpClient | undefined;
  const extra: TestServer[] = [];

  beforeAll(async () => {
    main = await listen('127.0.0.1', app);
  });
  afterAll(async () => {
    await stop(main);
  });
  afterEach(async () => {
    await client?.close();
    client = undefined;
    await Promise.all(extra.splice(0).map(stop));
    main.requests.length = 0;
  });

  const open = (allowlist: readonly string[]): GuardedHttpClient => {
    client = new GuardedHttpClient({ allowlist, userAgent: 'warden-test' });
    return client;
  };
  const get = (c: GuardedHttpClient, url: string, more: Partial<OutboundRequest> = {}) => c.request({ method: 'GET', url, ...more });

  describe('with the loopback range allowlisted', () => {
    it('performs a GET and returns status, headers, body and final URL', async () => {
      const res = await get(open(['127.0.0.0/8']), `${main.base}/hello`);
      expect(res.status).toBe(200);
      expect(res.headers['x-answer']).toBe('42');
      expect(res.body.toString()).toBe('hello world');
      expect(res.url).toBe(`${main.base}/hello`);
    });

    it('performs a POST with body and headers', async () => {
      const res = await open(['127.0.0.0/8']).request({
        method: 'POST',
        url: `${main.base}/echo`,
        headers: { 'Content-Type': 'text/plain', 'X-Signature': 'sig', Host: 'evil.example' },
        body: 'payload',
      });
      expect(res.status).toBe(200);
      const echoed = JSON.parse(res.body.toString()) as { method: string; body: string; headers: Record<string, string> };
      expect(echoed.method).toBe('POST');
      expect(echoed.body).toBe('payload');
      expect(echoed.headers['x-signature']).toBe('sig');
      expect(echoed.headers['content-type']).toBe('text/plain');
      expect(echoed.headers['user-agent']).toBe('warden-test');
      expect(echoed.headers['host']).toBe(`127.0.0.1:${main.port}`); // caller cannot re-aim Host
    });

    it('returns non-2xx responses instead of throwing', async () => {
      const res = await get(open(['127.0.0.0/8']), `${main.base}/fail`);
      expect(res.status).toBe(500);
      expect(res.body.toString()).toBe('boom');
    });

    it('reuses connections for sequential requests', async () => {
      const c = open(['127.0.0.0/8']);
      for (let i = 0; i < 6; i++) await get(c, `${main.base}/hello`);
      const sockets = new Set(main.requests.map((r) => r.socket));
      expect(main.requests).toHaveLength(6);
      // undici may open a second connection when the next request is dispatched in the same tick
      // the previous one finishes (before the first socket is marked idle), but no more than that.
      expect(sockets.size).toBeLessThanOrEqual(2);
    });

    it('resolves host names and connects to the vetted address (localhost allowlisted)', async () => {
      const res = await get(open(['127.0.0.0/8', '::1/128']), `http://localhost:${main.port}/hello`);
      expect(res.status).toBe(200);
      expect(res.body.toString()).toBe('hello world');
    });

    it('follows up to maxRedirects redirects, resolving relative locations', async () => {
      const res = await get(open(['127.0.0.0/8']), `${main.base}/chain/3`);
      expect(res.status).toBe(200);
      expect(res.body.toString()).toBe('end of chain');
      expect(res.url).toBe(`${main.base}/chain/0`);
      expect(main.requests).toHaveLength(4);
    });

    it('refuses a fourth redirect with too-many-redirects', async () => {
      const err = await failure(get(open(['127.0.0.0/8']), `${main.base}/chain/4`));
      expect(err.reason).toBe('too-many-redirects');
      expect(main.requests).toHaveLength(4); // /chain/4 .. /chain/1; /chain/0 never requested
    });

    it('honours a smaller maxRedirects', async () => {
      const err = await failure(get(open(['127.0.0.0/8']), `${main.base}/chain/1`, { maxRedirects: 0 }));
      expect(err.reason).toBe('too-many-redirects');
    });

    it('follows a redirect whose body it gives up reading (past 64 KiB), on a connection of its own after', async () => {
      const c = open(['127.0.0.0/8']);
      const res = await get(c, `${main.base}/redirect-big`);
      expect(res.status).toBe(200);
      expect(res.body.toString()).toBe('hello world');
      expect((await get(c, `${main.base}/hello`)).body.toString()).toBe('hello world');
    });

    it('answers with the final response after an informational one (102)', async () => {
      const res = await get(open(['127.0.0.0/8']), `${main.base}/informational`);
      expect(res.status).toBe(200);
      expect(res.body.toString()).toBe('after 102');
    });

    it("takes nothing of an informational answer's headers for the response's (103 Early Hints with a huge length)", async () => {
      const res = await get(open(['127.0.0.0/8']), `${main.base}/early-hints`);
      expect(res.status).toBe(200);
      expect(res.body.toString()).toBe('after 103');
      expect(res.headers['link']).toBeUndefined();
    });

    it('gives the same answers for a URL it has seen: the same response, the same refusal', async () => {
      const allowed = open(['127.0.0.0/8']);
      for (let i = 0; i < 3; i++) expect((await get(allowed, `${main.base}/hello`)).status).toBe(200);
      await allowed.close();
      const closed = open([]);
      for (let i = 0; i < 3; i++) expect((await failure(get(closed, `${main.base}/hello`))).reason).toBe('refused-address');
      expect(main.requests).toHaveLength(3);
    });

    it('does not follow redirects for POST', async () => {
      const res = await open(['127.0.0.0/8']).request({ method: 'POST', url: `${main.base}/redirect?to=/hello`, body: 'x' });
      expect(res.status).toBe(302);
      expect(res.headers['location']).toBe('/hello');
      expect(main.requests).toHaveLength(1);
    });

    it('does not forward Authorization or custom headers to a cross-origin redirect target', async () => {
      const other = await listen('127.0.0.1', (_req, res) => res.end('other'));
      extra.push(other);
      const res = await get(open(['127.0.0.0/8']), `${main.base}/redirect?status=307&to=${encodeURIComponent(`${other.base}/x`)}`, {
        headers: { Authorization: 'Bearer secret', 'X-Api-Key': 'k', Cookie: 'a=b' },
      });
      expect(res.status).toBe(200);
      expect(res.body.toString()).toBe('other');
      expect(res.url).toBe(`${other.base}/x`);
      expect(main.requests[0]?.headers['authorization']).toBe('Bearer secret'); // first hop gets them
      const hop = other.requests[0];
      expect(hop?.headers['authorization']).toBeUndefined();
      expect(hop?.headers['x-api-key']).toBeUndefined();
      expect(hop?.headers['cookie']).toBeUndefined();
      expect(hop?.headers['user-agent']).toBe('warden-test');
    });

    it('takes an answer that arrived while its thread was held past the deadline, instead of timing out on it', async () => {
      const receiver = await answerWhileHeld();
      try {
        const since = performance.now();
        const answer = get(open(['127.0.0.0/8']), `${receiver.base}/hook`, { timeoutMs: 300 });
        await waitFor(() => receiver.received(), 'the request at the receiver');
        // Held until the answer is on the socket and the deadline is 200 ms past, in the loop's check
        // phase (as by a long step of other work): the next turn starts with its timers.
        await new Promise<void>((resolve) =>
          setImmediate(() => {
            receiver.hold(since, 500);
            resolve();
          }),
        );
        const res = await answer;
        expect([res.status, res.body.toString()]).toEqual([200, 'ok']);
      } finally {
        await receiver.close();
      }
    });

    it('times out a server that never answers and abandons the request', async () => {
      const err = await failure(get(open(['127.0.0.0/8']), `${main.base}/hang`, { timeoutMs: 300 }));
      expect(err.reason).toBe('timeout');
      expect(main.requests).toHaveLength(1);
      await closedByClient(main.requests[0]!);
    });

    it('times out a body that stalls and abandons the download', async () => {
      const err = await failure(get(open(['127.0.0.0/8']), `${main.base}/hang-body`, { timeoutMs: 300 }));
      expect(err.reason).toBe('timeout');
      expect(main.requests).toHaveLength(1);
      await closedByClient(main.requests[0]!);
    });

    it('times out a host that never completes the TCP handshake at the deadline, not at the connect timeout', async () => {
      const host = await unreachableHost();
      const watched = watchSockets();
      try {
        // The connect timeout far beyond the deadline: undici heeded the deadline only once the
        // connection was made, so the request failed when the connect timeout ran out, socket gone.
        const err = await failure(get(open(['127.0.0.0/8']), `${host.base}/`, { timeoutMs: 200, connectTimeoutMs: 10_000 }));
        expect(err.reason).toBe('timeout');
        // Failed at the deadline, while the connection was still being established.
        expect(watched.sockets).toHaveLength(1);
        expect(watched.sockets[0]!.connecting).toBe(true);
      } finally {
        watched.stop();
        await host.release();
      }
    });

    it('refuses a response whose Content-Length exceeds maxBytes', async () => {
      const err = await failure(get(open(['127.0.0.0/8']), `${main.base}/big-declared`, { maxBytes: 1000 }));
      expect(err.reason).toBe('too-large');
    });

    it('cuts off a streamed response beyond maxBytes', async () => {
      const c = open(['127.0.0.0/8']);
      const err = await failure(get(c, `${main.base}/big-chunked`, { maxBytes: 100_000 }));
      expect(err.reason).toBe('too-large');
      const ok = await get(c, `${main.base}/big-chunked`, { maxBytes: 2 * 1024 * 1024 });
      expect(ok.body.length).toBe(64 * 16 * 1024);
    });

    it('reads a body the caller does not use without keeping it, still within maxBytes', async () => {
      const c = open(['127.0.0.0/8']);
      const kept = await get(c, `${main.base}/big-chunked`, { maxBytes: 2 * 1024 * 1024 });
      const dropped = await get(c, `${main.base}/big-chunked`, { maxBytes: 2 * 1024 * 1024, discardBody: true });
      expect([kept.status, kept.body.length]).toEqual([200, 64 * 16 * 1024]);
      expect([dropped.status, dropped.body.length]).toEqual([200, 0]);
      expect((await failure(get(c, `${main.base}/big-chunked`, { maxBytes: 100_000, discardBody: true }))).reason).toBe('too-large');
    });

    it('reports a refused connection as a network failure', async () => {
      const gone = await listen('127.0.0.1', (_req, res) => res.end());
      await stop(gone);
      const err = await failure(get(open(['127.0.0.0/8']), `${gone.base}/`));
      expect(err.reason).toBe('network');
    });
  });

  describe('refusals', () => {
    it('refuses loopback without an allowlist before any request reaches the server', async () => {
      const sockets = countSockets();
      try {
        const err = await failure(get(open([]), `${main.base}/hello`));
        expect(err.reason).toBe('refused-address');
        expect(sockets.count).toBe(0);
      } finally {
        sockets.stop();
      }
      const post = await failure(open([]).request({ method: 'POST', url: `${main.base}/echo`, body: 'x' }));
      expect(post.reason).toBe('refused-address');
      expect(main.requests).toHaveLength(0);
    });

    it('refuses a host name that resolves to loopback (localhost) without an allowlist', async () => {
      const err = await failure(get(open([]), `http://localhost:${main.port}/hello`));
      expect(err.reason).toBe('refused-address');
      expect(err.message).not.toMatch(/127\.0\.0\.1|::1/); // resolved address not disclosed
      expect(main.requests).toHaveLength(0);
    });

    it('refuses the metadata address without attempting a connection, even if link-local is allowlisted', async () => {
      const sockets = countSockets();
      try {
        for (const allowlist of [[], ['169.254.0.0/16']]) {
          const err = await failure(get(open(allowlist), 'http://169.254.169.254/latest/meta-data/', { connectTimeoutMs: 10_000, timeoutMs: 20_000 }));
          expect(err.reason).toBe('refused-address');
          await client?.close();
        }
        const v6 = await failure(get(open([]), 'http://[fd00:ec2::254]/latest/meta-data/'));
        expect(v6.reason).toBe('refused-address');
        const mapped = await failure(get(open([]), 'http://[::ffff:169.254.169.254]/'));
        expect(mapped.reason).toBe('refused-address');
        expect(sockets.count).toBe(0);
      } finally {
        sockets.stop();
      }
    });

    it('refuses IPv4-mapped and alternative spellings of loopback', async () => {
      const c = open([]);
      for (const url of [
        `http://[::ffff:127.0.0.1]:${main.port}/`,
        `http://[::ffff:7f00:1]:${main.port}/`,
        `http://2130706433:${main.port}/`, // 127.0.0.1 as a number; the URL parser normalises it
        `http://0x7f.1:${main.port}/`,
        `http://0.0.0.0:${main.port}/`,
        `http://[::]:${main.port}/`,
        `http://[::1]:${main.port}/`,
      ]) {
        const err = await failure(get(c, url));
        expect(err.reason, url).toBe('refused-address');
      }
      expect(main.requests).toHaveLength(0);
    });

    it('re-checks every redirect target: allowed server redirecting to a disallowed address is refused', async () => {
      // On Linux the whole 127.0.0.0/8 is loopback, so a second server can bind 127.0.0.2 and the
      // allowlist 127.0.0.1/32 separates the two. Where that bind fails (macOS), the target is
      // [::1] instead, which 127.0.0.1/32 does not cover either; the refusal happens before any
      // connection, so it holds even if nothing listens there.
      let target: TestServer | undefined;
      for (const host of ['127.0.0.2', '::1']) {
        try {
          target = await listen(host, (_req, res) => res.end('should not be reached'));
          break;
        } catch {
          // try the next
        }
      }
      if (target !== undefined) extra.push(target);
      const targetUrl = target === undefined ? `http://[::1]:${main.port}/` : `${target.base}/`;
      const c = open(['127.0.0.1/32']);
      const err = await failure(get(c, `${main.base}/redirect?to=${encodeURIComponent(targetUrl)}`));
      expect(err.reason).toBe('refused-address');
      expect(main.requests).toHaveLength(1);
      expect(target?.requests ?? []).toHaveLength(0);
    });

    it('refuses unsupported schemes and malformed URLs with invalid-url', async () => {
      const c = open(['127.0.0.0/8']);
      for (const url of [
        'file:///etc/passwd',
        'ftp://127.0.0.1/',
        'gopher://127.0.0.1:70/',
        'data:text/plain,hi',
        'not a url',
        `http://user:pass@127.0.0.1:${main.port}/hello`,
      ]) {
        const err = await failure(get(c, url));
        expect(err.reason, url).toBe('invalid-url');
      }
      expect(main.requests).toHaveLength(0);
    });

    it('refuses a redirect to an unsupported scheme with invalid-url', async () => {
      const err = await failure(get(open(['127.0.0.0/8']), `${main.base}/redirect?to=${encodeURIComponent('file:///etc/passwd')}`));
      expect(err.reason).toBe('invalid-url');
    });

    it('refuses requests after close()', async () => {
      const c = open(['127.0.0.0/8']);
      await c.close();
      const err = await failure(get(c, `${main.base}/hello`));
      expect(err.reason).toBe('network');
    });
  });
});

describe('OutboundAddressPolicy', () => {
  const strict = new OutboundAddressPolicy([]);

  it.each([
    '127.0.0.1',
    '127.255.255.254',
    '10.1.2.3',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.1.1',
    '100.64.0.1',
    '169.254.169.254',
    '169.254.1.1',
    '0.0.0.0',
    '255.255.255.255',
    '224.0.0.1',
    '240.0.0.1',
    '192.0.2.1',
    '198.18.0.1',
    '198.51.100.7',
    '203.0.113.9',
    '::',
    '::1',
    '::ffff:127.0.0.1',
    '::ffff:10.0.0.1',
    '::ffff:a9fe:a9fe',
    '::127.0.0.1',
    'fe80::1',
    'fe80::1%eth0',
    'fc00::1',
    'fd00:ec2::254',
    'ff02::1',
    '2001:db8::1',
    '64:ff9b::7f00:1', // NAT64 of 127.0.0.1
    '64:ff9b::a9fe:a9fe', // NAT64 of the metadata address
    '2002:7f00:1::1', // 6to4 of 127.0.0.1
    '2001::1', // Teredo
    'not-an-ip',
    // more of the ranges ipaddr.js names
    '0.1.2.3', // unspecified ("this network")
    '192.0.0.8', // reserved (IETF protocol assignments)
    '192.88.99.1', // reserved (6to4 relay anycast)
    '192.31.196.1', // as112
    '192.52.193.1', // amt
    '100::1', // discard
    'fec0::1', // deprecatedSiteLocal
    '2001:2::1', // benchmarking
    '2001:3::1', // amt
    '2001:4:112::1', // as112v6
    '2001:10::1', // deprecatedOrchid
    '2001:20::1', // orchid2
    '2001:30::1', // droneRemoteIdProtocolEntityTags
    '5f00::1', // segmentRouting
    '3fff::1', // reserved (documentation, RFC 9637)
    'fd12:3456::1', // uniqueLocal
    'ff05::2', // multicast
    '::7f00:1', // IPv4-compatible (deprecated) form of 127.0.0.1
    '::808:808', // IPv4-compatible (deprecated) form of a public address: refused all the same
    '::ffff:0:7f00:1', // rfc6145 (SIIT) of 127.0.0.1
    '::ffff:0:a9fe:a9fe', // rfc6145 of the metadata address
    '64:ff9b:1::a00:1', // local-use NAT64 (RFC 8215)
    '64:ff9b::a00:1', // NAT64 of 10.0.0.1
    '2002:a9fe:a9fe::1', // 6to4 of the metadata address
    '[::1]', // bracketed
  ])('refuses %s', (address) => {
    expect(strict.permits(address)).toBe(false);
  });

  it.each([
    '1.1.1.1',
    '8.8.8.8',
    '93.184.216.34',
    '172.32.0.1',
    '100.128.0.1',
    '2606:4700:4700::1111',
    '::ffff:8.8.8.8',
    '64:ff9b::808:808',
    '2002:808:808::1',
    '::ffff:0:808:808',
    '[2606:4700:4700::1111]',
    '2a00:1450:4001::1',
  ])('permits public %s', (address) => {
    expect(strict.permits(address)).toBe(true);
  });

  it('lets the allowlist open ranges, but never the metadata addresses', () => {
    const p = new OutboundAddressPolicy(['127.0.0.0/8', '10.0.0.0/8', '169.254.0.0/16', 'fd00::/8']);
    expect(p.permits('127.0.0.1')).toBe(true);
    expect(p.permits('::ffff:127.0.0.1')).toBe(true);
    expect(p.permits('10.9.8.7')).toBe(true);
    expect(p.permits('169.254.1.1')).toBe(true);
    expect(p.permits('fd00::1')).toBe(true);
    expect(p.permits('169.254.169.254')).toBe(false);
    expect(p.permits('::ffff:169.254.169.254')).toBe(false);
    expect(p.permits('fd00:ec2::254')).toBe(false);
    expect(p.permits('192.168.0.1')).toBe(false);
    expect(p.permits('::1')).toBe(false);
  });

  describe('the cloud metadata addresses', () => {
    // Written out again here, not imported: deleting an address from the guard's list must fail a
    // case below. Each comes with allowlists that cover it (its own address alone, and the range an
    // operator would plausibly open) and a neighbour that those ranges do let through.
    const metadata = [
      { address: '169.254.169.254', what: 'AWS, GCP, Azure, OpenStack', ranges: ['169.254.169.254/32', '169.254.0.0/16'], neighbour: '169.254.169.253' },
      { address: '169.254.170.2', what: 'AWS ECS task credentials', ranges: ['169.254.170.2/32', '169.254.0.0/16'], neighbour: '169.254.170.3' },
      { address: '169.254.170.23', what: 'AWS EKS pod identity', ranges: ['169.254.170.23/32', '169.254.0.0/16'], neighbour: '169.254.170.22' },
      { address: '100.100.100.200', what: 'Alibaba Cloud', ranges: ['100.100.100.200/32', '100.64.0.0/10'], neighbour: '100.100.100.201' },
      { address: 'fd00:ec2::254', what: 'AWS IMDS over IPv6', ranges: ['fd00:ec2::254/128', 'fd00::/8'], neighbour: 'fd00:ec2::253' },
      { address: 'fd00:ec2::23', what: 'AWS EKS pod identity over IPv6', ranges: ['fd00:ec2::23/128', 'fd00::/8'], neighbour: 'fd00:ec2::22' },
    ];

    /** The same destination as IPv6 spells it: the IPv4-mapped forms, and the ones that embed it (SIIT, NAT64, 6to4). */
    const spellings = (address: string): string[] => {
      const ip = ipaddr.parse(address);
      if (ip.kind() === 'ipv6') return [address, (ip as ipaddr.IPv6).toNormalizedString(), `[${address}]`];
      const [a, b, c, d] = ip.toByteArray() as [number, number, number, number];
      const hex = `${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
      return [address, `::ffff:${address}`, `::ffff:${hex}`, `[::ffff:${address}]`, `::ffff:0:${hex}`, `64:ff9b::${hex}`, `2002:${hex}::1`];
    };

    it.each(metadata)('refuses $address ($what) in every spelling, under every allowlist that covers it', ({ address, ranges, neighbour }) => {
      for (const range of [...ranges, ranges]) {
        const p = new OutboundAddressPolicy(typeof range === 'string' ? [range] : range);
        for (const spelling of spellings(address)) expect({ range, spelling, permitted: p.permits(spelling) }).toMatchObject({ permitted: false });
      }
      // The wide range does let the rest of itself through: the refusal above is the metadata list's.
      const wide = new OutboundAddressPolicy([ranges[1]!]);
      expect(wide.permits(neighbour)).toBe(true);
      if (ipaddr.parse(neighbour).kind() === 'ipv4') expect(wide.permits(`::ffff:${neighbour}`)).toBe(true);
    });
  });

  it('judges embedded IPv4 destinations by the IPv4 allowlist, and IPv6 ranges by the IPv6 one', () => {
    const p = new OutboundAddressPolicy(['10.0.0.0/8', 'fd12::/16', '64:ff9b:1::/48']);
    expect(p.permits('::ffff:10.1.2.3')).toBe(true);
    expect(p.permits('64:ff9b::a01:203')).toBe(true); // NAT64 of 10.1.2.3
    expect(p.permits('::ffff:0:a01:203')).toBe(true); // SIIT of 10.1.2.3
    expect(p.permits('2002:a01:203::1')).toBe(true); // 6to4 of 10.1.2.3
    expect(p.permits('64:ff9b::a9fe:a9fe')).toBe(false); // metadata stays refused
    expect(p.permits('fd12:3456::1')).toBe(true);
    expect(p.permits('fd13::1')).toBe(false);
    expect(p.permits('64:ff9b:1::1')).toBe(true);
    expect(p.permits('::ffff:11.1.2.3')).toBe(true); // public
    expect(p.permits('192.168.1.1')).toBe(false);
  });

  it('lets an allowlisted IPv6 range open an IPv6 address that is otherwise refused', () => {
    expect(new OutboundAddressPolicy([]).permits('2001:db8::1')).toBe(false);
    expect(new OutboundAddressPolicy(['2001:db8::/32']).permits('2001:db8::1')).toBe(true);
    expect(new OutboundAddressPolicy(['2001:db8::/32']).permits('2001:db9::1')).toBe(true); // public
    expect(new OutboundAddressPolicy(['2001:db8::/48']).permits('2001:db8:1::1')).toBe(false);
  });
});
