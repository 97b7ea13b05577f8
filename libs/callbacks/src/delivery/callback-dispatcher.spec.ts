import { createPublicKey, randomBytes, verify } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterEach, describe, expect, it } from 'vitest';
import { sealingEventStore, sqliteStores } from '../../../../test/support/sqlite-stores.js';
import { waitFor } from '../../../../test/support/wait-for.js';
import { type Clock, randomIds } from '#warden/kernel';
import { GuardedHttpClient, loadConfig, Metrics } from '#warden/platform';
import { PersonalDataPolicy } from '#warden/eventstore';
import { AggregateStore, Keyring, sealUrl } from '#warden/storage';
import { parseSignatureHeader } from '../domain/callback-signature.js';
import { deliveryStream } from '../domain/callbacks.streams.js';
import { SigningKeys } from '../signing/signing-keys.js';
import { CALLBACKS_PERSONAL_DATA } from '../contracts.js';
import { CallbackDispatcher, DELIVERIES_AT_ONCE, QUEUED_PER_RECEIVER } from './callback-dispatcher.js';
import { type DeliveryRequest, DeliveryRequests } from './delivery-requests.js';

interface Received {
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** A loopback receiver whose `respond` may leave a request hanging; close() cuts everything. */
async function receiver(respond: (n: number, res: ServerResponse) => void) {
  const requests: Received[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      requests.push({ url: req.url ?? '', headers: req.headers, body });
      respond(requests.length, res);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    requests,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((r) => server.close(() => r()));
    },
  };
}

const answer =
  (status: number, headers: Record<string, string> = {}) =>
  (res: ServerResponse) => {
    res.writeHead(status, headers);
    res.end();
  };

/** A full garbage collection, so that a WeakRef tells what is still held. */
function collectGarbage(): void {
  setFlagsFromString('--expose_gc');
  (runInNewContext('gc') as () => void)();
}

describe('callback dispatcher', () => {
  const cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  async function setup(
    options: { attemptTimeoutMs?: number; perDestinationConcurrency?: number; retrySchedule?: string; waitingBodies?: number; cacheBytes?: number } = {},
  ) {
    const stores = sqliteStores();
    // The log as a server appends and reads it: bodies sealed under their subject's key.
    const { store: events, keys } = sealingEventStore(stores, new PersonalDataPolicy().registerAll(CALLBACKS_PERSONAL_DATA));
    let offsetMs = 0;
    const clock: Clock = { now: () => new Date(Date.now() + offsetMs) };
    const keyring = new Keyring([randomBytes(32)]);
    const http = new GuardedHttpClient({ allowlist: ['127.0.0.0/8'] });
    const config = loadConfig({ WARDEN_CALLBACK_RETRY_SCHEDULE: options.retrySchedule ?? '20ms,40ms,60ms,80ms,100ms' }, '/tmp');
    const aggregates = new AggregateStore(events, clock, randomIds, options.cacheBytes === undefined ? {} : { cacheBytes: options.cacheBytes });
    const signing = new SigningKeys(aggregates, keyring, clock);
    const dispatcher = new CallbackDispatcher(
      events,
      clock,
      aggregates,
      keyring,
      http,
      config,
      {
        attemptTimeoutMs: options.attemptTimeoutMs ?? 2000,
        perDestinationConcurrency: options.perDestinationConcurrency ?? 4,
        responseLimitBytes: 1024,
        waitingBodies: options.waitingBodies,
      },
      signing,
      new Metrics(),
    );
    dispatcher.start();
    cleanups.push(async () => {
      await dispatcher.onApplicationShutdown();
      await http.close();
      await stores.close();
    });
    const requests = new DeliveryRequests(clock, aggregates, dispatcher);
    const request = (
      deliveryId: string,
      url: string,
      headers: Record<string, string> = {},
      creator?: { id: string; typeId: string },
      more: Record<string, unknown> = {},
      subject: string | null = null,
      orgId = 'acme',
    ) => {
      const delivery: DeliveryRequest = {
        deliveryId,
        kind: 'action',
        trigger: 'rule',
        actionId: 'remove',
        appealId: null,
        item: { id: 'p1', typeId: 'post' },
        destination: { ...sealUrl(url, keyring), headers: Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, keyring.seal(v)])) },
        body: { item: { id: 'p1', typeId: 'post', typeName: 'Post' }, action: { id: 'remove' }, ...(creator ? { creator } : {}), ...more },
        subject,
      };
      return requests.request(delivery, { orgId, correlationId: 'c', actor: 'test' });
    };
    const types = async (deliveryId: string) => (await stores.events.readStream(deliveryStream('acme', deliveryId))).map((e) => e.type);
    const jwks = () => signing.jwks('acme');
    return { request, types, jwks, stores, keys, dispatcher, advance: (ms: number) => (offsetMs += ms) };
  }

  const started = async (respond: (n: number, res: ServerResponse) => void) => {
    const r = await receiver(respond);
    cleanups.push(r.close);
    return r;
  };

  it('runs at most half of DELIVERIES_AT_ONCE of one organization at once: its receiver that never answers leaves the rest for others', async () => {
    const { request, stores } = await setup({ attemptTimeoutMs: 30_000, perDestinationConcurrency: 1024 });
    const hanging = await started(() => undefined);
    const fine = await started((_n, res) => answer(200)(res));
    await Promise.all(Array.from({ length: DELIVERIES_AT_ONCE + 44 }, (_, i) => request(`evil-${i}`, `${hanging.url}/cb`, {}, undefined, {}, null, 'evil')));
    await waitFor(() => hanging.requests.length === DELIVERIES_AT_ONCE / 2, 'half of the slots taken by the hanging receiver');
    await request('other-1', `${fine.url}/cb`, {}, undefined, {}, null, 'other');
    const recorded = async () => (await stores.events.readStream(deliveryStream('other', 'other-1'))).map((e) => e.type);
    await waitFor(async () => (await recorded()).includes('CallbackDelivered'), 'the other organization called back');
    expect(fine.requests).toHaveLength(1);
    // Its attempt ended while the first organization's still hang: that one still holds its half, no more.
    expect(hanging.requests).toHaveLength(DELIVERIES_AT_ONCE / 2);
  });

  it("holds no slot for deliveries queued at a receiver that never answers: the same organization's other callbacks go at once", async () => {
    const { request, stores, dispatcher } = await setup({ attemptTimeoutMs: 30_000 });
    const hanging = await started(() => undefined);
    const fine = await started((_n, res) => answer(200)(res));
    // More than the organization's share of the process's slots, all to one dead receiver (4 at a time).
    await Promise.all(
      Array.from({ length: DELIVERIES_AT_ONCE / 2 + 22 }, (_, i) => request(`dead-${i}`, `${hanging.url}/cb`, {}, undefined, {}, null, 'evil')),
    );
    await waitFor(
      () => hanging.requests.length === 4 && dispatcher.waitingAt(`${hanging.url}/cb`, 'evil') === DELIVERIES_AT_ONCE / 2 + 18,
      'four sent, the rest queued at the receiver',
    );
    await request('alive-1', `${fine.url}/cb`, {}, undefined, {}, null, 'evil');
    const recorded = async () => (await stores.events.readStream(deliveryStream('evil', 'alive-1'))).map((e) => e.type);
    await waitFor(async () => (await recorded()).includes('CallbackDelivered'), 'the callback to the live receiver delivered');
    expect(hanging.requests).toHaveLength(4);
  });

  it('keeps no body of a delivery queued at a busy receiver past the waiting bodies: it reads it again at its turn', async () => {
    // No aggregate cache (it would keep every state a minute), two bodies kept while waiting.
    const { request, types, dispatcher } = await setup({ attemptTimeoutMs: 30_000, perDestinationConcurrency: 1, waitingBodies: 2, cacheBytes: 1 });
    const held: ServerResponse[] = [];
    const slow = await started((_n, res) => held.push(res));
    const states: Array<WeakRef<object>> = [];
    const accept = dispatcher.accept.bind(dispatcher);
    dispatcher.accept = (key, state, revision) => {
      states.push(new WeakRef(state));
      accept(key, state, revision);
    };
    for (let i = 0; i < 6; i++) await request(`q-${i}`, `${slow.url}/cb`, {}, undefined, { n: i });
    await waitFor(() => held.length === 1 && dispatcher.waitingAt(`${slow.url}/cb`, 'acme') === 5, 'one sent, five queued');
    collectGarbage();
    // The one being sent and the two kept waiting; the other three hold their key and revision only.
    expect(states.filter((s) => s.deref() !== undefined)).toHaveLength(3);
    for (let sent = 1; sent <= 6; sent++) {
      await waitFor(() => held.length === sent, `callback ${sent} sent`);
      held[sent - 1]!.writeHead(200).end();
    }
    for (let i = 0; i < 6; i++) await waitFor(async () => (await types(`q-${i}`)).includes('CallbackDelivered'), `q-${i} delivered`);
    expect(slow.requests.map((r) => (JSON.parse(r.body) as { n: number }).n).sort()).toEqual([0, 1, 2, 3, 4, 5]);
  });

  it("parks deliveries past a receiver's queue as tickets; another organization calling back the same receiver has slots and a queue of its own", async () => {
    const { request, stores, dispatcher } = await setup({ attemptTimeoutMs: 30_000, perDestinationConcurrency: 1 });
    const held: ServerResponse[] = [];
    // Alpha's path hangs until the test answers it; beta's is answered at once: one receiver (scheme, host and port).
    const shared = await started((_n, res) => (res.req.url === '/beta' ? answer(200)(res) : held.push(res)));
    const url = `${shared.url}/alpha`;
    const flood = QUEUED_PER_RECEIVER + 36;
    await Promise.all(Array.from({ length: flood }, (_, i) => request(`a-${i}`, url, {}, { id: `u-${i % 5}`, typeId: 'user' }, {}, null, 'alpha')));
    await waitFor(() => held.length === 1 && dispatcher.waitingAt(url, 'alpha') === flood - 1, 'one sent, the rest waiting');
    expect(dispatcher.parkedAt(url, 'alpha')).toBe(flood - 1 - QUEUED_PER_RECEIVER);
    const delivered = async (org: string, id: string) => (await stores.events.readStream(deliveryStream(org, id))).some((e) => e.type === 'CallbackDelivered');
    // Beta's callbacks go while alpha's attempt holds its only slot and its queue is full: with the
    // slots shared by turns, beta's first waited for alpha's attempt to end (here, never), and each
    // slot beta gave back went to alpha at its next turn.
    for (let i = 0; i < 3; i++) {
      await request(`b-${i}`, `${shared.url}/beta`, {}, undefined, {}, null, 'beta');
      await waitFor(() => delivered('beta', `b-${i}`), `b-${i} delivered`);
    }
    expect(held).toHaveLength(1);
    expect(dispatcher.waitingAt(`${shared.url}/beta`, 'beta')).toBe(0);
    for (let i = 1; i <= flood; i++) {
      await waitFor(() => held.length >= i, `callback ${i} sent`);
      held[i - 1]!.writeHead(200).end();
    }
    for (let i = 0; i < flood; i++) await waitFor(() => delivered('alpha', `a-${i}`), `a-${i} delivered`);
    expect(new Set(shared.requests.map((r) => r.headers['service-delivery-id'])).size).toBe(flood + 3);
    expect(dispatcher.waitingAt(url, 'alpha')).toBe(0);
  });

  it('sends the body with the opened headers, signed, with the delivery id, and records the delivery', async () => {
    const { request, types, jwks } = await setup();
    const hook = await started((_n, res) => answer(202)(res));
    expect(await request('d-1', `${hook.url}/hook`, { Authorization: 'Bearer secret', 'Service-Delivery-Id': 'forged' })).toBe(true);
    await waitFor(async () => (await types('d-1')).includes('CallbackDelivered'), 'the delivery');
    const [req] = hook.requests;
    expect(req!.body).toBe('{"item":{"id":"p1","typeId":"post","typeName":"Post"},"action":{"id":"remove"}}');
    expect(req!.headers['authorization']).toBe('Bearer secret');
    expect(req!.headers['content-type']).toBe('application/json');
    expect(req!.headers['service-delivery-id']).toBe('d-1');
    const sig = parseSignatureHeader(req!.headers['service-signature'] as string)!;
    const jwk = (await jwks()).keys.find((k) => k.kid === sig.kid)!;
    const key = createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: jwk.x }, format: 'jwk' });
    expect(verify(null, Buffer.from(`${sig.t}.d-1.${req!.body}`), key, Buffer.from(sig.v1, 'base64'))).toBe(true);
    expect(await request('d-1', `${hook.url}/hook`)).toBe(false);
    expect(await types('d-1')).toEqual(['CallbackDeliveryRequested', 'CallbackDelivered']);
  });

  it("sends a body whose moderator's email was erased (stored as null) without actorEmail", async () => {
    const { request, types } = await setup();
    const hook = await started((_n, res) => answer(202)(res));
    await request('d-erased', `${hook.url}/hook`, {}, undefined, { actorEmail: null, decisionReason: 'Spam campaign' });
    await waitFor(async () => (await types('d-erased')).includes('CallbackDelivered'), 'the delivery');
    expect(hook.requests[0]!.body).toBe('{"item":{"id":"p1","typeId":"post","typeName":"Post"},"action":{"id":"remove"},"decisionReason":"Spam campaign"}');
  });

  it('reads a retry from the log: a subject erased after a failed attempt is not sent again from memory, the delivery given up', async () => {
    const { request, types, keys, stores } = await setup({ retrySchedule: '1s' });
    const hook = await started((_n, res) => answer(500)(res));
    await request('d-retry-erased', `${hook.url}/hook`, {}, { id: 'u1', typeId: 'user' }, { custom: { note: 'what the user wrote' } }, 'user:u1');
    await waitFor(async () => (await types('d-retry-erased')).includes('CallbackAttemptFailed'), 'the failed first attempt');
    expect(hook.requests[0]!.body).toContain('what the user wrote');
    expect(await keys.forget('acme', 'user:u1')).toBe(1);
    await waitFor(async () => (await types('d-retry-erased')).includes('CallbackDeadLettered'), 'the delivery given up');
    expect(hook.requests).toHaveLength(1);
    const [, , given] = await stores.events.readStream(deliveryStream('acme', 'd-retry-erased'));
    expect(given!.data).toMatchObject({ reason: "The callback's personal data was erased" });
  });

  it("sends a URL's user info as Basic credentials, percent-decoded, and the URL without it", async () => {
    const { request, types, stores } = await setup();
    const hook = await started((_n, res) => answer(200)(res));
    // The guarded client refuses a URL with credentials: sent as is, every attempt failed and the delivery was dead-lettered.
    const withUserInfo = hook.url.replace('http://', 'http://alice:s3cr%C3%A9t%3A%40@');
    expect(await request('d-basic', `${withUserInfo}/ok?tenant=acme`, { 'X-Tenant': 'acme' })).toBe(true);
    await waitFor(async () => (await types('d-basic')).some((t) => t !== 'CallbackDeliveryRequested'), 'the first attempt');
    expect(await types('d-basic')).toEqual(['CallbackDeliveryRequested', 'CallbackDelivered']);
    const [req] = hook.requests;
    expect(req!.url).toBe('/ok?tenant=acme');
    expect(req!.headers['authorization']).toBe(`Basic ${Buffer.from('alice:s3crét:@').toString('base64')}`);
    expect(req!.headers['host']).toBe(new URL(hook.url).host);
    expect(req!.headers['x-tenant']).toBe('acme');
    // The log keeps the user info sealed only.
    const logged = JSON.stringify(await stores.events.readStream(deliveryStream('acme', 'd-basic')));
    expect(logged).not.toContain('alice');
    expect(logged).not.toContain('s3cr');
  });

  it('sends nothing, and never shows the user info, when the URL has user info and the headers an Authorization', async () => {
    const { request, types, stores } = await setup();
    const hook = await started((_n, res) => answer(200)(res));
    await request('d-both', hook.url.replace('http://', 'http://alice:s3cret@'), { Authorization: 'Bearer token' });
    await waitFor(async () => (await types('d-both')).includes('CallbackAttemptFailed'), 'the failed attempt');
    const [, failed] = await stores.events.readStream(deliveryStream('acme', 'd-both'));
    expect(failed!.data['error']).toBe('The callback URL has user info and its headers an Authorization header; keep one, apply, then redeliver');
    expect(JSON.stringify(await stores.events.readStream(deliveryStream('acme', 'd-both')))).not.toContain('s3cret');
    expect(hook.requests).toHaveLength(0);
  });

  it('sends nothing while paused (another worker runs the deliveries) and, resumed, sends what the log says is due', async () => {
    const { request, types, dispatcher } = await setup();
    const hook = await started((_n, res) => answer(200)(res));
    dispatcher.pause();
    expect(await request('d-paused', `${hook.url}/paused`)).toBe(true);
    dispatcher.start();
    await request('d-live', `${hook.url}/live`);
    await waitFor(async () => (await types('d-live')).includes('CallbackDelivered'), 'the live delivery');
    // Recorded while paused, so only the log knows it is due: a restore hands it over again.
    expect(hook.requests.map((r) => r.url)).toEqual(['/live']);
    expect(await types('d-paused')).toEqual(['CallbackDeliveryRequested']);
    dispatcher.schedule({ orgId: 'acme', deliveryId: 'd-paused' }, new Date().toISOString());
    await waitFor(async () => (await types('d-paused')).includes('CallbackDelivered'), 'the restored delivery');
    expect(hook.requests.map((r) => r.url)).toEqual(['/live', '/paused']);
  });

  it('delivers, once started here again, a retry whose failed attempt was recorded while pausing', async () => {
    const { request, types, dispatcher, stores } = await setup();
    // The first attempt is still in flight when the dispatcher pauses, and fails.
    const hook = await started((n, res) => (n === 1 ? setTimeout(() => answer(500)(res), 300) : answer(200)(res)));
    await request('d-again', `${hook.url}/again`);
    await waitFor(() => hook.requests.length === 1, 'the first attempt in flight');
    await dispatcher.pause();
    expect(await types('d-again')).toEqual(['CallbackDeliveryRequested', 'CallbackAttemptFailed']);
    // The lease comes back to this process: its start reloads what the log says is due.
    dispatcher.start();
    const recorded = await stores.events.readStream(deliveryStream('acme', 'd-again'));
    const failed = recorded[recorded.length - 1]!;
    dispatcher.schedule({ orgId: 'acme', deliveryId: 'd-again' }, String(failed.data['nextAttemptAt']), failed.revision);
    await waitFor(async () => (await types('d-again')).includes('CallbackDelivered'), 'the retry delivered');
    expect(hook.requests).toHaveLength(2);
  });

  it('signs every attempt afresh with the time of that attempt', async () => {
    const { request, types, advance } = await setup();
    const hook = await started((n, res) => {
      if (n === 1) advance(3_600_000);
      answer(n === 1 ? 500 : 200)(res);
    });
    await request('d-2', hook.url);
    await waitFor(async () => (await types('d-2')).includes('CallbackDelivered'), 'the delivery');
    const [first, second] = hook.requests.map((r) => parseSignatureHeader(r.headers['service-signature'] as string)!);
    expect(second!.t - first!.t).toBeGreaterThanOrEqual(3600);
    expect(second!.v1).not.toBe(first!.v1);
    expect(new Set(hook.requests.map((r) => r.headers['service-delivery-id']))).toEqual(new Set(['d-2']));
  });

  it('counts a timeout as a failed attempt and retries it', async () => {
    // The first attempt is never answered; the second is answered at once, with room to spare on a loaded machine.
    const { request, types, stores } = await setup({ attemptTimeoutMs: 1500 });
    const hook = await started((n, res) => {
      if (n > 1) answer(200)(res);
    });
    await request('d-3', hook.url);
    await waitFor(async () => (await types('d-3')).includes('CallbackDelivered'), 'the delivery');
    const events = await stores.events.readStream(deliveryStream('acme', 'd-3'));
    expect(events.map((e) => e.type)).toEqual(['CallbackDeliveryRequested', 'CallbackAttemptFailed', 'CallbackDelivered']);
    expect(events[1]!.data).toMatchObject({ status: null, error: 'Outbound request timed out' });
  });

  it('dead-letters after the last retry, and refuses private addresses without sending', async () => {
    const { request, types, stores } = await setup();
    const hook = await started((_n, res) => answer(503)(res));
    await request('d-4', hook.url);
    await waitFor(async () => (await types('d-4')).includes('CallbackDeadLettered'), 'the dead letter');
    expect(hook.requests).toHaveLength(6);
    await request('d-5', 'http://10.1.2.3/hook');
    await waitFor(async () => (await types('d-5')).includes('CallbackAttemptFailed'), 'the refused attempt');
    const [, refused] = await stores.events.readStream(deliveryStream('acme', 'd-5'));
    expect(refused!.data['error']).toMatch(/refused/);
  });

  it("lets another user's callback take the next turn at a busy receiver, before a flood's queued ones", async () => {
    const { request, types, dispatcher } = await setup({ perDestinationConcurrency: 1 });
    const held: Array<() => void> = [];
    const hook = await started((_n, res) => held.push(() => answer(200)(res)));
    const flooder = { id: 'flooder', typeId: 'user' };
    // A rule's callbacks: no personal-data subject, the user named by the body's creator only.
    for (const id of ['f1', 'f2', 'f3', 'f4']) expect(await request(id, `${hook.url}/${id}`, {}, flooder)).toBe(true);
    await waitFor(() => hook.requests.length === 1, 'the first callback at the receiver');
    expect(await request('o1', `${hook.url}/o1`, {}, { id: 'other', typeId: 'user' })).toBe(true);
    await waitFor(() => dispatcher.waitingAt(hook.url, 'acme') === 4, 'f2, f3, f4 and o1 waiting for the slot');
    while (hook.requests.length < 5) {
      await waitFor(() => held.length > 0, 'a request held at the receiver');
      held.shift()!();
      await waitFor(() => held.length > 0 || hook.requests.length === 5, 'the next request');
    }
    held.shift()?.();
    // Turns alternate by user: the flood's next one (its turn came first), then the other user's;
    // as the item's turns they were (every callback its own), o1 went last.
    expect(hook.requests.map((r) => r.url)).toEqual(['/f1', '/f2', '/o1', '/f3', '/f4']);
    await waitFor(async () => (await types('f4')).includes('CallbackDelivered'), 'the last delivery');
  });

  it('keeps delivering to a healthy receiver while another hangs with all its slots taken', async () => {
    // Attempts outlast the test, so the hanging ones hold their slots however slow the machine.
    const { request, types } = await setup({ attemptTimeoutMs: 120_000, perDestinationConcurrency: 2 });
    const hanging = await started(() => undefined);
    const healthy = await started((_n, res) => answer(200)(res));
    for (let i = 0; i < 5; i++) await request(`hang-${i}`, hanging.url);
    await waitFor(() => hanging.requests.length === 2, 'the hanging receiver to hold its slots');
    for (let i = 0; i < 20; i++) await request(`ok-${i}`, healthy.url);
    await waitFor(async () => {
      const all = await Promise.all(Array.from({ length: 20 }, (_, i) => types(`ok-${i}`)));
      return all.every((t) => t.includes('CallbackDelivered'));
    }, 'the healthy deliveries');
    expect(hanging.requests).toHaveLength(2);
    expect(await types('hang-0')).toEqual(['CallbackDeliveryRequested']);
  });
});
