import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventCount, loggedEvents, writeConfig } from '../support/config-files.js';
import { expectErrorBody } from '../support/error-body.js';
import { deliveriesAt, type ReviewWorld, reviewOrgConfig, type Session, startReceiver, startReviewWorld } from '../support/review-fixture.js';
import { waitFor } from '../support/wait-for.js';
import { waitUntilProcessed } from '../support/projection-progress.js';
import { type RunningWarden, runCliBatch, startWarden } from '../support/warden-process.js';

type Item = { id: string; typeId: string };
type BulkView = {
  bulkActionId: string;
  status: string;
  items: number;
  processed: number;
  executed: number;
  alreadyActioned: number;
  missing: number;
  failed: number;
  requestedBy: string;
};

/** A second organization whose items share ids with the first's: never acted on from `rev`. */
const otherOrgConfig = (callbackUrl: string) => `
org: { id: other, name: Other Org }
itemTypes:
  - { id: post, name: Post, kind: CONTENT, fields: [{ name: text, type: STRING, required: true }] }
actions:
  - { id: remove, name: Remove, kind: CUSTOMER_DEFINED_ACTION, itemTypeIds: [post], callback: { url: ${callbackUrl}/hooks/other } }
`;

describe('bulk actions (console API), end to end', () => {
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let world: ReviewWorld;
  let manager: Session;
  let otherKey: string;

  const posts = (prefix: string, count: number): Item[] => Array.from({ length: count }, (_, i) => ({ id: `${prefix}${i}`, typeId: 'post' }));
  /** Submits posts by `u<i % 7>` in requests of 500. */
  const submit = async (items: Item[], text = 'hello', key?: string) => {
    for (let i = 0; i < items.length; i += 500) {
      const body = { items: items.slice(i, i + 500).map((it, k) => ({ ...it, data: { text, author: { id: `u${(i + k) % 7}`, typeId: 'user' } } })) };
      const response =
        key === undefined
          ? await world.api('POST', '/api/v1/items/async', body)
          : await fetch(`${world.warden.url}/api/v1/items/async`, {
              method: 'POST',
              headers: { 'x-api-key': key, 'content-type': 'application/json' },
              body: JSON.stringify({ items: body.items.map((it) => ({ ...it, data: { text } })) }),
            });
      expect(response.status, await response.clone().text()).toBe(202);
    }
  };
  const bulk = (path: string, body?: unknown, session: Session = manager) => world.call(session, 'POST', `/api/console/v1/bulk-actions${path}`, body);
  const requested = async (body: unknown): Promise<BulkView> => {
    const response = await bulk('', body);
    expect(response.status, await response.clone().text()).toBe(202);
    return (await response.json()) as BulkView;
  };
  const view = async (id: string): Promise<BulkView> => (await (await world.call(manager, 'GET', `/api/console/v1/bulk-actions/${id}`)).json()) as BulkView;
  const finished = (id: string, timeoutMs = 60_000) =>
    waitFor(
      async () => {
        const v = await view(id);
        return v.status !== 'RUNNING' && v;
      },
      { what: `bulk action ${id} finished`, timeoutMs },
    );
  /** Deliveries received at the remove hook, each once (a retry arrives again under its id), by item id. */
  const removeCallbacks = (ids: ReadonlySet<string>) => deliveriesAt(receiver.received, '/hooks/remove', (id) => ids.has(id));
  const executionsOf = (ids: ReadonlySet<string>) => loggedEvents(world.dataDir, 'ActionExecuted').filter((e) => ids.has((e.data['item'] as Item).id));

  beforeAll(async () => {
    receiver = await startReceiver();
    world = await startReviewWorld(reviewOrgConfig(receiver.url), ['MODERATOR_MANAGER', 'MODERATOR']);
    manager = world.sessions['MODERATOR_MANAGER']!;
    // One CLI process for its set-up (test/support/warden-process.ts, runCliBatch).
    const [, otherMade] = await runCliBatch(world.env, [
      ['apply', writeConfig(otherOrgConfig(receiver.url), 'other.yaml')],
      ['api-key', 'create', '--org', 'other'],
    ]);
    otherKey = otherMade!.at(-1)!;
  }, 120_000);

  afterAll(async () => {
    await world?.warden.stop();
    await receiver?.close();
  });

  it('previews counts per type: existing, missing (another organization’s ids too), new actions, duplicates', async () => {
    await submit(posts('pv', 5));
    await submit([{ id: 'pv-other', typeId: 'post' }], 'hello', otherKey);
    const items = [
      ...posts('pv', 5),
      { id: 'pv-missing', typeId: 'post' },
      { id: 'pv-other', typeId: 'post' },
      { id: 'u0', typeId: 'user' },
      { id: 'pv0', typeId: 'post' },
    ];
    const response = await bulk('/preview', { actionId: 'remove', policyIds: ['spam'], reason: 'preview', items: items.filter((i) => i.typeId === 'post') });
    expect(response.status, await response.clone().text()).toBe(200);
    expect(await response.json()).toEqual({
      items: 7,
      existing: 5,
      missing: 2,
      newActions: 5,
      alreadyActioned: 0,
      duplicates: 1,
      byType: [{ typeId: 'post', items: 7, existing: 5, missing: 2, newActions: 5, alreadyActioned: 0 }],
    });
    // A preview records nothing.
    expect(eventCount(world.dataDir, "type = 'BulkActionRequested'")).toBe(0);
  });

  it('executes each stored item once: callbacks, executions by the manager; the same ids and reason again act on nothing twice', async () => {
    const items = posts('once', 250);
    const ids = new Set(items.map((i) => i.id));
    await submit(items);
    const body = { actionId: 'remove', policyIds: ['spam'], reason: 'spam wave 1', items: [...items, { id: 'once-missing', typeId: 'post' }] };
    const first = await requested(body);
    expect(first).toMatchObject({ status: 'RUNNING', items: 251, requestedBy: `user:${world.userIds['MODERATOR_MANAGER']}` });
    expect(await finished(first.bulkActionId)).toMatchObject({ status: 'COMPLETED', processed: 251, executed: 250, alreadyActioned: 0, missing: 1, failed: 0 });
    await waitFor(() => removeCallbacks(ids).length >= 250, '250 callbacks');
    const executions = executionsOf(ids);
    expect(executions).toHaveLength(250);
    expect(new Set(executions.map((e) => e.metadata['actor']))).toEqual(new Set([`user:${world.userIds['MODERATOR_MANAGER']}`]));
    expect(loggedEvents(world.dataDir, 'BulkActionRequested').find((e) => e.data['bulkActionId'] === first.bulkActionId)!.metadata['actor']).toBe(
      `user:${world.userIds['MODERATOR_MANAGER']}`,
    );

    // The preview of the same request sees them actioned; the request again executes nothing.
    const preview = (await (await bulk('/preview', body)).json()) as { newActions: number; alreadyActioned: number };
    expect(preview).toMatchObject({ newActions: 0, alreadyActioned: 250 });
    const second = await requested(body);
    expect(await finished(second.bulkActionId)).toMatchObject({ status: 'COMPLETED', executed: 0, alreadyActioned: 250, missing: 1 });
    // A later single execution proves the pipeline flowed past the second operation: still exactly 250 of these.
    await world.api('POST', '/api/v1/actions', { actionId: 'remove', itemId: 'once-marker', itemTypeId: 'post' });
    await waitFor(() => removeCallbacks(new Set(['once-marker'])).length === 1, 'the marker callback');
    expect(removeCallbacks(ids)).toHaveLength(250);
    expect(executionsOf(ids)).toHaveLength(250);

    // Another reason is another action: acted on again.
    const third = await requested({ ...body, items: items.slice(0, 3), reason: 'spam wave 2' });
    expect(await finished(third.bulkActionId)).toMatchObject({ executed: 3, alreadyActioned: 0 });
  }, 180_000);

  it('names the manager and the reason in each callback (actorEmail, decisionReason, rules []), sealed; POST /api/v1/actions names neither', async () => {
    const items = posts('actor', 2);
    const ids = new Set(items.map((i) => i.id));
    await submit(items);
    const op = await requested({ actionId: 'remove', policyIds: ['spam'], reason: 'spam wave by hand', items });
    expect(await finished(op.bulkActionId)).toMatchObject({ status: 'COMPLETED', executed: 2 });
    const sent = await waitFor(() => {
      const found = removeCallbacks(ids);
      return found.length === 2 && found;
    }, 'the callbacks of the bulk action');
    const managerId = world.userIds['MODERATOR_MANAGER']!;
    for (const callback of sent) {
      const body = JSON.parse(callback.body) as { rules: unknown; custom: object; actorEmail?: string; decisionReason?: string };
      expect(body).toMatchObject({ rules: [], actorEmail: 'moderator_manager@rev.example', decisionReason: 'spam wave by hand' });
      // The reason is not merged into `custom`: that is for decisions on reported items only (docs/callbacks.md).
      expect(body.custom).not.toHaveProperty('reason');
    }
    // The email is the manager's personal data: sealed in the log under their key, wherever it is copied.
    const request = loggedEvents(world.dataDir, 'BulkActionRequested').find((e) => e.data['bulkActionId'] === op.bulkActionId)!;
    expect(request.data['requester']).toMatchObject({ userId: managerId, email: null });
    const deliveries = loggedEvents(world.dataDir, 'CallbackDeliveryRequested').filter((e) => ids.has((e.data['item'] as Item).id));
    expect(deliveries.map((e) => e.data['actorUserId'])).toEqual([managerId, managerId]);
    const copies = [request, ...deliveries, ...loggedEvents(world.dataDir, 'ActionCallbackRequested').filter((e) => ids.has((e.data['item'] as Item).id))];
    expect(copies).toHaveLength(5);
    expect(JSON.stringify(copies)).not.toContain('moderator_manager@rev.example');

    // The platform's own execution names no one.
    const executed = await world.api('POST', '/api/v1/actions', { actionId: 'remove', itemId: 'actor-api', itemTypeId: 'post', policyIds: ['spam'] });
    expect(executed.status, await executed.clone().text()).toBe(202);
    const [platform] = await waitFor(() => {
      const found = removeCallbacks(new Set(['actor-api']));
      return found.length === 1 && found;
    }, 'the callback of POST /api/v1/actions');
    const body = JSON.parse(platform!.body) as object;
    expect(body).toMatchObject({ rules: [], policies: [{ id: 'spam' }] });
    expect(body).not.toHaveProperty('actorEmail');
    expect(body).not.toHaveProperty('decisionReason');
  });

  it('another organization’s item ids are counted as missing and never acted on', async () => {
    await submit(posts('foreign', 3), 'hello', otherKey);
    const ids = new Set(['foreign0', 'foreign1', 'foreign2']);
    const op = await requested({ actionId: 'remove', reason: 'not ours', items: posts('foreign', 3) });
    expect(await finished(op.bulkActionId)).toMatchObject({ status: 'COMPLETED', executed: 0, missing: 3 });
    expect(executionsOf(ids)).toHaveLength(0);
    expect(receiver.received.filter((r) => r.path === '/hooks/other')).toHaveLength(0);
    // The other organization's API key opens no console route (the operation is read with a session only).
    const otherView = await fetch(`${world.warden.url}/api/console/v1/bulk-actions/${op.bulkActionId}`, { headers: { 'x-api-key': otherKey } });
    expect(otherView.status).toBe(401);
  });

  it('an open review job of an actioned item closes (AUTOMATIC_CLOSE, ITEM_ACTIONED)', async () => {
    await submit([{ id: 'jobbed', typeId: 'post' }], 'please review me');
    const opened = await waitFor(
      () => loggedEvents(world.dataDir, 'ReviewJobOpened').find((e) => (e.data['item'] as Item).id === 'jobbed'),
      'the review job of jobbed',
    );
    const op = await requested({ actionId: 'remove', policyIds: ['spam'], reason: 'close it', items: [{ id: 'jobbed', typeId: 'post' }] });
    expect(await finished(op.bulkActionId)).toMatchObject({ executed: 1 });
    const closed = await waitFor(() => loggedEvents(world.dataDir, 'ReviewJobDecided').find((e) => e.data['jobId'] === opened.data['jobId']), 'the job closed');
    expect(closed.data).toMatchObject({ type: 'AUTOMATIC_CLOSE', closeReason: 'ITEM_ACTIONED' });
  });

  it('cancel stops further chunks; what was executed stays and is counted', async () => {
    const items = posts('cancel', 3000);
    const ids = new Set(items.map((i) => i.id));
    await submit(items);
    const op = await requested({ actionId: 'remove', reason: 'cancel me', items });
    const cancelled = await bulk(`/${op.bulkActionId}/cancel`);
    expect(cancelled.status, await cancelled.clone().text()).toBe(200);
    const done = await finished(op.bulkActionId);
    expect(done.status).toBe('CANCELLED');
    // The chunk under way when it came is still recorded. Its executions may not be in the log yet
    // (0 executed and 0 executions looked settled: CI caught it): the reactor applying every chunk
    // event in the log now is the positive signal that the chunk under way is done.
    await waitUntilProcessed(world.warden.url, world.dataDir, 'enforcement-bulk-actions', ['BulkActionRequested', 'BulkActionChunkExecuted']);
    const settled = await waitFor(async () => {
      const v = await view(op.bulkActionId);
      return v.executed === executionsOf(ids).length && v;
    }, 'the cancelled operation counted what it executed');
    expect(settled.executed).toBeLessThan(3000);
    await waitFor(() => removeCallbacks(ids).length === settled.executed, `${settled.executed} callbacks`);
    // Nothing more follows: a later operation's completion shows the worker went past it.
    const later = await requested({ actionId: 'remove', reason: 'after the cancel', items: posts('cancel', 1) });
    await finished(later.bulkActionId);
    expect(
      executionsOf(ids).filter(
        (e) =>
          e.metadata['correlationId'] ===
          loggedEvents(world.dataDir, 'BulkActionRequested').find((r) => r.data['bulkActionId'] === op.bulkActionId)!.metadata['correlationId'],
      ),
    ).toHaveLength(settled.executed);
    expect((await view(op.bulkActionId)).processed).toBe(settled.processed);
    // Cancelling again changes nothing; a completed operation cannot be cancelled.
    expect((await bulk(`/${op.bulkActionId}/cancel`)).status).toBe(200);
    await expectErrorBody(await bulk(`/${later.bulkActionId}/cancel`), 409, '/errors/conflict');
  }, 180_000);

  it('bad input answers the standard error body with a pointer, records nothing; a MODERATOR is refused', async () => {
    const before = eventCount(world.dataDir, "type = 'BulkActionRequested'");
    const good = { actionId: 'remove', policyIds: ['spam'], reason: 'r', items: [{ id: 'x', typeId: 'post' }] };
    await expectErrorBody(await bulk('', { ...good, reason: undefined }), 400, '/errors/invalid-user-input', '/reason');
    await expectErrorBody(await bulk('', { ...good, actionId: 'nope' }), 400, '/errors/invalid-user-input', '/actionId');
    await expectErrorBody(await bulk('', { ...good, policyIds: ['spam', 'nope'] }), 400, '/errors/invalid-user-input', '/policyIds/1');
    await expectErrorBody(await bulk('', { ...good, items: [] }), 400, '/errors/invalid-user-input', '/items');
    const badItems = await bulk('', {
      ...good,
      items: [{ id: 'ok', typeId: 'post' }, { id: 'bad\u0000id', typeId: 'post' }, { id: 'y', typeId: 'nope' }, 'z'],
    });
    const first = await expectErrorBody(badItems, 400, '/errors/invalid-user-input', '/items/1/id');
    expect(first).toBeTruthy();
    const pointers = (
      (await (
        await bulk('/preview', { ...good, items: [{ id: 'ok', typeId: 'post' }, { id: 'bad\u0000id', typeId: 'post' }, { id: 'y', typeId: 'nope' }, 'z'] })
      ).json()) as {
        errors: Array<{ pointer: string }>;
      }
    ).errors.map((e) => e.pointer);
    expect(pointers).toEqual(['/items/1/id', '/items/2/typeId', '/items/3']);
    // The user type has no `remove`: every item of it is refused, at its pointer.
    await expectErrorBody(await bulk('', { ...good, items: [{ id: 'u1', typeId: 'user' }] }), 400, '/errors/invalid-user-input', '/items/0/typeId');
    // Past 10,000 items.
    await expectErrorBody(await bulk('', { ...good, items: posts('many', 10_001) }), 400, '/errors/invalid-user-input', '/items');
    await expectErrorBody(await bulk('', [1, 2]), 400, '/errors/invalid-user-input');
    expect(eventCount(world.dataDir, "type = 'BulkActionRequested'")).toBe(before);

    await expectErrorBody(await world.call(manager, 'GET', '/api/console/v1/bulk-actions/blk_unknown'), 404, '/errors/not-found');
    await expectErrorBody(await bulk('/blk_unknown/cancel'), 404, '/errors/not-found');
    const moderator = world.sessions['MODERATOR']!;
    await expectErrorBody(await bulk('/preview', good, moderator), 403, '/errors/forbidden');
    await expectErrorBody(await bulk('', good, moderator), 403, '/errors/forbidden');
    expect(eventCount(world.dataDir, "type = 'BulkActionRequested'")).toBe(before);
  });
});

describe('bulk actions after a crash of the worker', () => {
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let world: ReviewWorld;
  let restarted: RunningWarden | undefined;
  const COUNT = 1500;

  beforeAll(async () => {
    receiver = await startReceiver();
    world = await startReviewWorld(reviewOrgConfig(receiver.url), ['MODERATOR_MANAGER']);
  }, 120_000);

  afterAll(async () => {
    await restarted?.stop();
    await world?.warden.stop();
    await receiver?.close();
  });

  it('resumes from its recorded progress and acts on no item twice', async () => {
    const ids = Array.from({ length: COUNT }, (_, i) => `crash${i}`);
    for (let i = 0; i < COUNT; i += 500) {
      const items = ids.slice(i, i + 500).map((id, k) => ({ id, typeId: 'post', data: { text: 'hello', author: { id: `u${(i + k) % 7}`, typeId: 'user' } } }));
      expect((await world.api('POST', '/api/v1/items/async', { items })).status).toBe(202);
    }
    const manager = world.sessions['MODERATOR_MANAGER']!;
    const call = (url: string, method: string, path: string, body?: unknown) =>
      fetch(url + path, {
        method,
        headers: { cookie: manager.cookie, 'x-csrf-token': manager.csrfToken, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    const response = await call(world.warden.url, 'POST', '/api/console/v1/bulk-actions', {
      actionId: 'remove',
      reason: 'crash',
      items: ids.map((id) => ({ id, typeId: 'post' })),
    });
    expect(response.status, await response.clone().text()).toBe(202);
    const { bulkActionId } = (await response.json()) as BulkView;
    // Killed mid-way: some chunks recorded, the one under way perhaps half executed.
    await waitFor(() => eventCount(world.dataDir, "type = 'BulkActionChunkExecuted'") >= 2, { what: 'two chunks recorded', timeoutMs: 60_000 });
    await world.warden.stop('SIGKILL');
    const recordedBefore = eventCount(world.dataDir, "type = 'BulkActionChunkExecuted'");
    expect(recordedBefore).toBeLessThan(COUNT / 100);

    restarted = await startWarden(world.env, 90_000);
    const done = await waitFor(
      async () => {
        const view = (await (await call(restarted!.url, 'GET', `/api/console/v1/bulk-actions/${bulkActionId}`)).json()) as BulkView;
        return view.status === 'COMPLETED' && view;
      },
      { what: 'the bulk action completed after the restart', timeoutMs: 120_000 },
    );
    expect(done.processed).toBe(COUNT);
    // Each chunk recorded once, in order; each item executed once, however the crash cut the chunk.
    const chunks = loggedEvents(world.dataDir, 'BulkActionChunkExecuted').map((e) => e.data['chunk']);
    expect(chunks).toEqual(Array.from({ length: COUNT / 100 }, (_, i) => i));
    const executed = loggedEvents(world.dataDir, 'ActionExecuted').map((e) => (e.data['item'] as Item).id);
    expect(executed).toHaveLength(COUNT);
    expect(new Set(executed).size).toBe(COUNT);
    expect(done.executed + done.alreadyActioned).toBe(COUNT);
    // One callback per item: deliveries counted by their ids (a delivery cut by the crash arrives again under its id).
    await waitFor(
      () => new Set(receiver.received.filter((r) => r.path === '/hooks/remove').map((r) => String(r.headers['service-delivery-id']))).size >= COUNT,
      { what: `${COUNT} callbacks`, timeoutMs: 120_000 },
    );
    const items = new Map<string, string>();
    for (const r of receiver.received.filter((r) => r.path === '/hooks/remove')) {
      items.set(String(r.headers['service-delivery-id']), (JSON.parse(r.body) as { item: Item }).item.id);
    }
    expect(items.size).toBe(COUNT);
    expect(new Set(items.values()).size).toBe(COUNT);
  }, 300_000);
});
