import { createPublicKey, verify } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventCount, loggedEvents, writeConfig } from '../support/config-files.js';
import { expectErrorBody } from '../support/error-body.js';
import { deliveriesAt, type ReceivedCallback, type ReviewWorld, reviewOrgConfig, startReceiver, startReviewWorld } from '../support/review-fixture.js';
import { waitFor } from '../support/wait-for.js';
import { runCliBatch } from '../support/warden-process.js';

type Body = { [key: string]: unknown };
type Jwks = { keys: Array<{ kid: string; x: string }> };

const BODY_LIMIT_BYTES = 64 * 1024;

/** The review organization plus `ban`, a customer-defined action on users that strikes. */
function actionsConfig(callbackUrl: string): string {
  return reviewOrgConfig(callbackUrl).replace(
    '\nrules:\n',
    `
  - id: ban
    name: Ban
    kind: CUSTOMER_DEFINED_ACTION
    itemTypeIds: [user]
    applyUserStrikes: true
    penalty: HIGH
    callback: { url: ${callbackUrl}/hooks/ban }
rules:
`,
  );
}

/** A second organization with an action of its own, for isolation. */
const otherOrgConfig = (callbackUrl: string) => `
org: { id: other, name: Other Org }
itemTypes:
  - { id: post, name: Post, kind: CONTENT, fields: [{ name: text, type: STRING, required: true }] }
policies:
  - { id: spam, name: Spam, penalty: LOW }
actions:
  - { id: other-remove, name: Remove, kind: CUSTOMER_DEFINED_ACTION, itemTypeIds: [post], callback: { url: ${callbackUrl}/hooks/other } }
`;

/** What a receiver does (docs/callbacks.md): the key by kid, the Ed25519 signature over `<t>.<delivery id>.<raw body>`. */
function signedBy(jwks: Jwks, callback: ReceivedCallback): boolean {
  const fields = Object.fromEntries(
    String(callback.headers['service-signature'])
      .split(',')
      .map((p) => p.split(/=(.*)/s).slice(0, 2)),
  );
  const jwk = jwks.keys.find((k) => k.kid === fields['kid']);
  if (!jwk) return false;
  const key = createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: jwk.x }, format: 'jwk' });
  const signed = `${fields['t']}.${String(callback.headers['service-delivery-id'])}.${callback.body}`;
  return verify(null, Buffer.from(signed), key, Buffer.from(fields['v1'] ?? '', 'base64'));
}

describe('POST /api/v1/actions, end to end', () => {
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let world: ReviewWorld;
  let otherKey: string;

  const execute = (body: unknown, key?: string) =>
    key === undefined
      ? world.api('POST', '/api/v1/actions', body)
      : fetch(`${world.warden.url}/api/v1/actions`, {
          method: 'POST',
          headers: { 'x-api-key': key, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
  const accepted = async (body: unknown, key?: string): Promise<string> => {
    const response = await execute(body, key);
    expect(response.status, await response.clone().text()).toBe(202);
    const { executionId } = (await response.json()) as { executionId: string };
    expect(executionId).toMatch(/^exe_/);
    return executionId;
  };
  /** The callbacks received for an item at a hook, each delivery once (a retry arrives again under its id). */
  const callbacks = (path: string, itemId: string) => deliveriesAt(receiver.received, path, (id) => id === itemId);
  const callbacksOf = (path: string, itemId: string, count: number) =>
    waitFor(() => {
      const found = callbacks(path, itemId);
      return found.length >= count && found;
    }, `${count} callback(s) of ${itemId} at ${path}`);
  const executions = () => eventCount(world.dataDir, "type = 'ActionExecuted'");

  beforeAll(async () => {
    receiver = await startReceiver();
    world = await startReviewWorld(actionsConfig(receiver.url), [], { WARDEN_BODY_LIMIT_BYTES: String(BODY_LIMIT_BYTES) });
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

  it('202 with an execution id; the signed callback is the decision shape without actor fields, and strikes apply', async () => {
    const submitted = await world.api('POST', '/api/v1/items/async', {
      items: [{ id: 'p-known', typeId: 'post', data: { text: 'hello', author: { id: 'u-known', typeId: 'user' } } }],
    });
    expect(submitted.status).toBe(202);
    const request = { actionId: 'remove', itemId: 'p-known', itemTypeId: 'post', policyIds: ['violence', 'spam'], actorId: 'staff-17' };
    const executionId = await accepted(request);

    const [callback] = await callbacksOf('/hooks/remove', 'p-known', 1);
    const jwks = (await (await world.api('GET', '/api/v1/signing_keys')).json()) as Jwks;
    expect(signedBy(jwks, callback!)).toBe(true);
    // Exactly the action callback body (docs/callbacks.md, "The bodies"), fields in its order: the policies given (violence strikes 3, spam 1: the largest counts).
    expect(callback!.body).toBe(
      JSON.stringify({
        item: { id: 'p-known', typeId: 'post', typeName: 'Post' },
        action: { id: 'remove' },
        policies: [
          { id: 'violence', name: 'Violence', penalty: 'HIGH' },
          { id: 'spam', name: 'Spam', penalty: 'LOW' },
        ],
        rules: [],
        custom: { severity: 'high' },
        creator: { id: 'u-known', typeId: 'user' },
        userStrikeCount: 3,
      }),
    );
    const [recorded] = loggedEvents(world.dataDir, 'ActionExecuted').filter((e) => e.data['executionId'] === executionId);
    expect(recorded!.data).toMatchObject({ actorId: 'staff-17', creator: { id: 'u-known', typeId: 'user' }, reportedItems: [] });
    expect(recorded!.metadata['actor']).toMatch(/^api-key:/);

    // No idempotency key: the same request again is a second execution, a second callback, three more strikes.
    const second = await accepted(request);
    expect(second).not.toBe(executionId);
    const both = await callbacksOf('/hooks/remove', 'p-known', 2);
    expect(both.map((c) => (JSON.parse(c.body) as Body)['userStrikeCount']).sort()).toEqual([3, 6]);
    // The score follows: one submission, an item actioned at MEDIUM + HIGH (3 + 9 points) scores 1.
    await waitFor(async () => (await (await world.api('GET', '/api/v1/user_scores?id=u-known&typeId=user')).json()) === 1, 'the score of u-known');
  });

  it('with an Idempotency-Key a repeat answers the first execution and executes nothing', async () => {
    const send = () =>
      fetch(`${world.warden.url}/api/v1/actions`, {
        method: 'POST',
        headers: { 'x-api-key': world.key, 'content-type': 'application/json', 'idempotency-key': 'retry-of-p-retried' },
        body: JSON.stringify({ actionId: 'remove', itemId: 'p-retried', itemTypeId: 'post' }),
      });
    const first = await send();
    expect(first.status).toBe(202);
    const before = executions();
    const repeat = await send();
    expect(repeat.status).toBe(202);
    expect(repeat.headers.get('idempotent-replayed')).toBe('true');
    expect(((await repeat.json()) as Body)['executionId']).toBe(((await first.json()) as Body)['executionId']);
    expect(executions()).toBe(before);
  });

  it('a USER item is its own user, known to Warden or not; an unknown content item has no user', async () => {
    await accepted({ actionId: 'ban', itemId: 'u-never-seen', itemTypeId: 'user', policyIds: ['spam'] });
    const [ban] = await callbacksOf('/hooks/ban', 'u-never-seen', 1);
    expect(JSON.parse(ban!.body)).toEqual({
      item: { id: 'u-never-seen', typeId: 'user', typeName: 'User' },
      action: { id: 'ban' },
      policies: [{ id: 'spam', name: 'Spam', penalty: 'LOW' }],
      rules: [],
      custom: {},
      creator: { id: 'u-never-seen', typeId: 'user' },
      userStrikeCount: 1,
    });

    await accepted({ actionId: 'remove', itemId: 'p-unknown', itemTypeId: 'post' });
    const [removed] = await callbacksOf('/hooks/remove', 'p-unknown', 1);
    expect(JSON.parse(removed!.body)).toEqual({
      item: { id: 'p-unknown', typeId: 'post', typeName: 'Post' },
      action: { id: 'remove' },
      policies: [],
      rules: [],
      custom: { severity: 'high' },
    });
  });

  it("the open review jobs of reportedItems close with AUTOMATIC_CLOSE (ITEM_ACTIONED); other items' jobs stay open", async () => {
    const report = (itemId: string) =>
      world.api('POST', '/api/v1/report', {
        reporter: { kind: 'user', id: 'u-reporter', typeId: 'user' },
        reportedAt: '2026-03-01T12:00:00Z',
        reportedItem: { id: itemId, typeId: 'post', data: { text: 'nasty', author: { id: 'u-nasty', typeId: 'user' } } },
      });
    expect((await report('p-reported')).status).toBe(201);
    expect((await report('p-bystander')).status).toBe(201);
    const opened = (itemId: string) =>
      waitFor(
        () => loggedEvents(world.dataDir, 'ReviewJobOpened').find((e) => (e.data['item'] as { id: string }).id === itemId),
        `the review job of ${itemId}`,
      );
    const job = await opened('p-reported');
    const bystander = await opened('p-bystander');

    const executionId = await accepted({ actionId: 'ban', itemId: 'u-nasty', itemTypeId: 'user', reportedItems: [{ id: 'p-reported', typeId: 'post' }] });
    const closed = await waitFor(
      () => loggedEvents(world.dataDir, 'ReviewJobDecided').find((e) => e.data['jobId'] === job.data['jobId']),
      'the reported item closed',
    );
    expect(closed.data).toMatchObject({ type: 'AUTOMATIC_CLOSE', closeReason: 'ITEM_ACTIONED', actor: null });
    expect(loggedEvents(world.dataDir, 'ActionExecuted').find((e) => e.data['executionId'] === executionId)!.data['reportedItems']).toEqual([
      { id: 'p-reported', typeId: 'post' },
    ]);
    expect(loggedEvents(world.dataDir, 'ReviewJobDecided').some((e) => e.data['jobId'] === bystander.data['jobId'])).toBe(false);
  });

  it('a built-in enqueue action puts the item into review with source POST_ACTIONS, and sends no callback', async () => {
    await accepted({ actionId: 'enqueue-to-mrt', itemId: 'p-to-review', itemTypeId: 'post', policyIds: ['spam'] });
    const opened = await waitFor(
      () => loggedEvents(world.dataDir, 'ReviewJobOpened').find((e) => (e.data['item'] as { id: string }).id === 'p-to-review'),
      'the review job of p-to-review',
    );
    expect(opened.data).toMatchObject({ queueId: 'default', request: { source: 'POST_ACTIONS', action: { id: 'enqueue-to-mrt' } } });
    expect(loggedEvents(world.dataDir, 'ActionCallbackRequested').some((e) => (e.data['item'] as { id: string }).id === 'p-to-review')).toBe(false);
  });

  it('400 with a pointer for each problem, all in one answer, and nothing recorded', async () => {
    const valid = { actionId: 'remove', itemId: 'p-400', itemTypeId: 'post' };
    const cases: Array<[string, Body, string]> = [
      ['missing actionId', { itemId: 'p-400', itemTypeId: 'post' }, '/actionId'],
      ['missing itemId', { actionId: 'remove', itemTypeId: 'post' }, '/itemId'],
      ['missing itemTypeId', { actionId: 'remove', itemId: 'p-400' }, '/itemTypeId'],
      ['unknown action', { ...valid, actionId: 'obliterate' }, '/actionId'],
      ['action not assigned to the item type', { ...valid, actionId: 'ban' }, '/actionId'],
      ['unknown item type', { ...valid, itemTypeId: 'essay' }, '/itemTypeId'],
      ['unknown policy', { ...valid, policyIds: ['spam', 'fraud'] }, '/policyIds/1'],
      ['policyIds not an array', { ...valid, policyIds: 'spam' }, '/policyIds'],
      ['a policy id not a string', { ...valid, policyIds: [7] }, '/policyIds/0'],
      ['reportedItems not an array', { ...valid, reportedItems: { id: 'p', typeId: 'post' } }, '/reportedItems'],
      ['a reported item not an object', { ...valid, reportedItems: ['p-1'] }, '/reportedItems/0'],
      ['a reported item of an unknown type', { ...valid, reportedItems: [{ id: 'p-1', typeId: 'essay' }] }, '/reportedItems/0/typeId'],
      ['a reported item without id', { ...valid, reportedItems: [{ typeId: 'post' }] }, '/reportedItems/0/id'],
      ['an itemId too long for a stream name', { ...valid, itemId: 'x'.repeat(257) }, '/itemId'],
      ['an itemId with a control character', { ...valid, itemId: 'p\u0000' }, '/itemId'],
      ['an itemId with a lone surrogate', { ...valid, itemId: 'p\ud800' }, '/itemId'],
      ['an empty itemId', { ...valid, itemId: '' }, '/itemId'],
      ['a numeric actionId', { ...valid, actionId: 5 }, '/actionId'],
      ['actorId not a string', { ...valid, actorId: 17 }, '/actorId'],
      ['an empty actorId', { ...valid, actorId: '' }, '/actorId'],
    ];
    const before = executions();
    for (const [what, body, pointer] of cases) {
      const error = await expectErrorBody(await execute(body), 400, '/errors/invalid-user-input', pointer);
      expect(error['detail'], what).toEqual(expect.any(String));
    }

    const everything = await execute({ actionId: 'obliterate', itemTypeId: 'essay', policyIds: ['fraud'], reportedItems: [7], actorId: 3 });
    expect(everything.status).toBe(400);
    const pointers = ((await everything.json()) as { errors: Array<{ pointer: string }> }).errors.map((e) => e.pointer).sort();
    expect(pointers).toEqual(['/actionId', '/actorId', '/itemId', '/itemTypeId', '/policyIds/0', '/reportedItems/0']);
    expect(executions()).toBe(before);
  });

  it('an action of another organization is unknown; each organization executes its own', async () => {
    const before = executions();
    await expectErrorBody(await execute({ actionId: 'other-remove', itemId: 'p-iso', itemTypeId: 'post' }), 400, '/errors/invalid-user-input', '/actionId');
    await expectErrorBody(await execute({ actionId: 'remove', itemId: 'p-iso', itemTypeId: 'post' }, otherKey), 400, '/errors/invalid-user-input', '/actionId');
    expect(executions()).toBe(before);
    await accepted({ actionId: 'other-remove', itemId: 'p-iso', itemTypeId: 'post', policyIds: ['spam'] }, otherKey);
    const [callback] = await callbacksOf('/hooks/other', 'p-iso', 1);
    expect(JSON.parse(callback!.body)).toMatchObject({ action: { id: 'other-remove' }, policies: [{ id: 'spam', name: 'Spam', penalty: 'LOW' }] });
    expect(loggedEvents(world.dataDir, 'ActionExecuted').filter((e) => e.metadata['orgId'] === 'other')).toHaveLength(1);
  });

  it('401 without a key, 413 over the body limit, 415 for a body that is not JSON', async () => {
    const url = `${world.warden.url}/api/v1/actions`;
    const body = JSON.stringify({ actionId: 'remove', itemId: 'p-x', itemTypeId: 'post' });
    await expectErrorBody(await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body }), 401, '/errors/unauthorized');
    await expectErrorBody(
      await execute({ actionId: 'remove', itemId: 'p-x', itemTypeId: 'post', actorId: 'x'.repeat(BODY_LIMIT_BYTES) }),
      413,
      '/errors/payload-too-large',
    );
    await expectErrorBody(
      await fetch(url, { method: 'POST', headers: { 'x-api-key': world.key, 'content-type': 'text/plain' }, body }),
      415,
      '/errors/unsupported-media-type',
    );
  });
});
