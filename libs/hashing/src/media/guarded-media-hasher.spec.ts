import { createServer, type ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EventStore } from '#warden/eventstore';
import { GuardedHttpClient, type WardenConfig } from '#warden/platform';
import type { AggregateStore } from '#warden/storage';
import { GuardedMediaHasher, MAX_MEDIA_PER_VERSION, MEDIA_PER_ITEM, MEDIA_PER_PROCESS } from './guarded-media-hasher.js';

/** Polls until `probe` holds (the state a step waits for), failing after a generous while. */
async function until(probe: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (!probe()) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('GuardedMediaHasher', () => {
  /** Requests the image server holds unanswered, oldest first, and the most it held at once. */
  const held: ServerResponse[] = [];
  let mostHeld = 0;
  let url = '';
  const server = createServer((req, res) => {
    req.resume();
    held.push(res);
    mostHeld = Math.max(mostHeld, held.length);
  });
  const http = new GuardedHttpClient({ allowlist: ['127.0.0.0/8'] });

  beforeAll(async () => {
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  });
  afterAll(async () => {
    await http.close();
    server.closeAllConnections();
    await new Promise<void>((r) => server.close(() => r()));
  });

  it("fetches at most MEDIA_PER_ITEM of an item's images at once, each answer letting the next one go", async () => {
    // Nothing recorded yet: every URL is fetched.
    const events = { readStream: () => Promise.resolve([]) } as unknown as EventStore;
    const hasher = new GuardedMediaHasher(events, http, {} as AggregateStore, { mediaTimeoutMs: 20_000 } as WardenConfig);
    const urls = Array.from({ length: 12 }, (_, i) => `${url}/image-${i}.png`);
    const hashing = hasher.hashItemMedia({ orgId: 'acme', correlationId: 'c', actor: 'test' }, { id: 'i1', typeId: 'post', subject: 's' }, 0, urls);
    let answered = 0;
    while (answered < urls.length) {
      // The server answers one request (404) each time it holds as many as may be under way.
      await until(() => held.length >= Math.min(MEDIA_PER_ITEM, urls.length - answered), 'the requests under way');
      held.shift()!.writeHead(404).end();
      answered++;
    }
    const results = await hashing;
    expect(results.map((r) => (r.result.ok ? 'hashed' : r.result.reason))).toEqual(urls.map(() => 'http-404'));
    expect(mostHeld).toBe(MEDIA_PER_ITEM);
  });

  it('fetches the first MAX_MEDIA_PER_VERSION distinct images of a version and answers the rest unavailable, to be recorded by no one', async () => {
    const events = { readStream: () => Promise.resolve([]) } as unknown as EventStore;
    const hasher = new GuardedMediaHasher(events, http, {} as AggregateStore, { mediaTimeoutMs: 20_000 } as WardenConfig);
    const urls = Array.from({ length: MAX_MEDIA_PER_VERSION + 50 }, (_, i) => `${url}/many-${i}.png`);
    let answered = 0;
    const answering = setInterval(() => {
      while (held.length > 0) {
        held.shift()!.writeHead(404).end();
        answered++;
      }
    }, 5);
    try {
      const results = await hasher.hashItemMedia({ orgId: 'acme', correlationId: 'c', actor: 'test' }, { id: 'i2', typeId: 'post', subject: 's' }, 0, [
        ...urls,
        urls[0]!,
      ]);
      expect(results).toHaveLength(urls.length);
      expect(answered).toBe(MAX_MEDIA_PER_VERSION);
      expect(results.slice(0, MAX_MEDIA_PER_VERSION).every((r) => !r.recorded && !r.result.ok && r.result.reason === 'http-404')).toBe(true);
      expect(results[MAX_MEDIA_PER_VERSION]).toEqual({
        result: { ok: false, url: urls[MAX_MEDIA_PER_VERSION], reason: `not fetched: at most ${MAX_MEDIA_PER_VERSION} images of an item version are hashed` },
        recorded: true,
      });
    } finally {
      clearInterval(answering);
    }
  });

  it('fetches at most MEDIA_PER_PROCESS images at once over every item and organization', async () => {
    held.length = 0;
    mostHeld = 0;
    const events = { readStream: () => Promise.resolve([]) } as unknown as EventStore;
    const hasher = new GuardedMediaHasher(events, http, {} as AggregateStore, { mediaTimeoutMs: 20_000 } as WardenConfig);
    // Eight items of eight organizations, four images each: 32 fetches that could run at once (with
    // fewer organizations, their shares and the slots kept for others would leave some free).
    const hashing = Array.from({ length: 8 }, (_, n) =>
      hasher.hashItemMedia(
        { orgId: `org-${n}`, correlationId: 'c', actor: 'test' },
        { id: `i${n}`, typeId: 'post', subject: 's' },
        0,
        Array.from({ length: MEDIA_PER_ITEM }, (_, i) => `${url}/item-${n}-image-${i}.png`),
      ),
    );
    await until(() => held.length === MEDIA_PER_PROCESS, 'every slot taken');
    for (let answered = 0; answered < 32; answered++) {
      await until(() => held.length > 0, 'a request under way');
      held.shift()!.writeHead(404).end();
    }
    await Promise.all(hashing);
    expect(mostHeld).toBe(MEDIA_PER_PROCESS);
  });
});
