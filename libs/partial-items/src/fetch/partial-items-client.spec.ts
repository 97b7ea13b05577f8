import { randomBytes } from 'node:crypto';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { CommandBus, QueryBus } from '@nestjs/cqrs';
import { afterEach, describe, expect, it } from 'vitest';
import { sqliteStores } from '../../../../test/support/sqlite-stores.js';
import { SignWithOrganizationKeyQuery } from '#warden/callbacks';
import { GetCatalogSettingsQuery, type PartialItemsSettings } from '#warden/catalog';
import { type AcceptedItem, SubmitItemsCommand } from '#warden/ingestion';
import { type CommandContext, randomIds, unavailable } from '#warden/kernel';
import { GuardedHttpClient, Metrics, loadConfig } from '#warden/platform';
import { Keyring, type ProjectionHost, sealUrl } from '#warden/storage';
import { answerLimitFor, PartialItemsClient } from './partial-items-client.js';

interface Asked {
  url: string;
  headers: IncomingHttpHeaders;
}

const context: CommandContext = { orgId: 'acme', correlationId: 'c', actor: 'test' };

describe('partial items client', () => {
  const cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  /** A loopback endpoint holding `post/p1`, and a client whose section has `url` (given the endpoint's origin) and `headers`, sealed as apply seals them. */
  async function setup(
    url: (origin: string) => string,
    headers: Record<string, string> = {},
    options: { answer?: (json: string) => Buffer; submitFails?: Error } = {},
  ) {
    const asked: Asked[] = [];
    const server = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        asked.push({ url: req.url ?? '', headers: req.headers });
        const { items } = JSON.parse(body) as { items: Array<{ id: string; typeId: string }> };
        res.writeHead(200, { 'content-type': 'application/json' });
        const json = JSON.stringify({ items: items.map((i) => ({ ...i, data: { text: 'whole' } })), notFound: [] });
        res.end(options.answer ? options.answer(json) : json);
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const origin = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    const stores = sqliteStores();
    const keyring = new Keyring([randomBytes(32)]);
    const http = new GuardedHttpClient({ allowlist: ['127.0.0.0/8'] });
    const settings: PartialItemsSettings = {
      ...sealUrl(url(origin), keyring),
      headers: Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, keyring.seal(v) as never])),
      timeoutMs: 2000,
      cacheSeconds: 0,
      maxConcurrency: 1,
      retries: 0,
    };
    const queries = {
      execute: async (query: unknown) => {
        if (query instanceof GetCatalogSettingsQuery) return settings;
        if (query instanceof SignWithOrganizationKeyQuery) return { kid: 'k1', signature: Buffer.from('sig').toString('base64url') };
        throw new Error(`unexpected query ${String(query)}`);
      },
    } as unknown as QueryBus;
    const commands = {
      execute: async (command: unknown): Promise<AcceptedItem[]> => {
        if (!(command instanceof SubmitItemsCommand)) throw new Error(`unexpected command ${String(command)}`);
        if (options.submitFails) throw options.submitFails;
        return (command.items as Array<{ id: string; typeId: string }>).map((i) => ({
          id: i.id,
          typeId: i.typeId,
          version: 1,
          subject: `item:${i.typeId}:${i.id}`,
        }));
      },
    } as unknown as CommandBus;
    const projections = { catchUp: async () => {} } as unknown as ProjectionHost;
    const client = new PartialItemsClient(
      queries,
      commands,
      http,
      keyring,
      { now: () => new Date() },
      randomIds,
      projections,
      stores.events,
      new Metrics(),
      loadConfig({}, '/tmp'),
    );
    cleanups.push(async () => {
      await client.onApplicationShutdown();
      await http.close();
      await stores.close();
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    });
    const fetchP1 = async () => (await client.fetchItems(context, [{ id: 'p1', typeId: 'post' }], 'console'))[0]!;
    return { asked, fetchP1 };
  }

  it('refuses an answer that is not well-formed UTF-8, as a request body would be, instead of recording U+FFFD in its place', async () => {
    // The answer's JSON with one byte of the item's text made 0xFF (never valid in UTF-8).
    const answer = (json: string) => {
      const bytes = Buffer.from(json, 'utf8');
      bytes[json.indexOf('whole')] = 0xff;
      return bytes;
    };
    const { fetchP1 } = await setup((origin) => `${origin}/partial`, {}, { answer });
    expect(await fetchP1()).toEqual({ ok: false, reason: "the partial-items endpoint's answer is not well-formed UTF-8" });
  });

  it('refuses an answer larger than the items asked may make, before reading it', async () => {
    // One item asked, at most 1 MiB as JSON (the default limit): an answer of 2 MiB and 64 KiB at most.
    expect(answerLimitFor(1, 1024 * 1024)).toBe(2 * 1024 * 1024 + 64 * 1024);
    expect(answerLimitFor(100, 1024 * 1024)).toBe(16 * 1024 * 1024);
    const padded = (json: string) => Buffer.from(json.replace('"whole"', JSON.stringify('x'.repeat(3 * 1024 * 1024))));
    const { fetchP1 } = await setup((origin) => `${origin}/partial`, {}, { answer: padded });
    expect(await fetchP1()).toEqual({
      ok: false,
      reason: "the partial-items endpoint's answer is over 2162688 bytes (twice WARDEN_MAX_ITEM_BYTES for each item asked, and 64 KiB)",
    });
  });

  it('tells a log that is unavailable apart from a refused answer: the fetch failed inside Warden, not the customer', async () => {
    const { fetchP1 } = await setup((origin) => `${origin}/partial`, {}, { submitFails: unavailable('the event store is unreachable') });
    expect(await fetchP1()).toEqual({ ok: false, reason: 'the fetch failed inside Warden (see its log)' });
  });

  it("sends a URL's user info as Basic credentials, percent-decoded, to the URL without it, as a callback's", async () => {
    // The guarded client refuses a URL with credentials: sent as is, every fetch failed ("invalid or unsupported URL").
    const { asked, fetchP1 } = await setup((origin) => `${origin.replace('http://', 'http://alice:s3cr%C3%A9t%3A%40@')}/warden/items?tenant=acme`, {
      'X-Tenant': 'acme',
    });
    const outcome = await fetchP1();
    expect(outcome).toMatchObject({ ok: true, item: { id: 'p1', typeId: 'post', data: { text: 'whole' } } });
    expect(asked).toHaveLength(1);
    expect(asked[0]!.url).toBe('/warden/items?tenant=acme');
    expect(asked[0]!.headers['authorization']).toBe(`Basic ${Buffer.from('alice:s3crét:@').toString('base64')}`);
    expect(asked[0]!.headers['host']).toMatch(/^127\.0\.0\.1:\d+$/);
    expect(asked[0]!.headers['x-tenant']).toBe('acme');
  });

  it('sends nothing, and never shows the user info, when the URL has user info and the headers an Authorization (a section applied before apply refused it)', async () => {
    const { asked, fetchP1 } = await setup((origin) => `${origin.replace('http://', 'http://alice:s3cret@')}/warden/items`, { Authorization: 'Bearer t' });
    const outcome = await fetchP1();
    expect(outcome).toEqual({
      ok: false,
      reason: 'the partial-items endpoint was not called: its URL has user info and its headers an Authorization header; keep one and apply',
    });
    expect(JSON.stringify(outcome)).not.toContain('s3cret');
    expect(asked).toHaveLength(0);
  });
});
