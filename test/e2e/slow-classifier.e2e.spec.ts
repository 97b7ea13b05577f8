import { createServer, type Server } from 'node:http';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../support/wait-for.js';
import { freshDataDir, runCliBatch, type RunningWarden, startWarden, testEnv } from '../support/warden-process.js';

/** What every organization's item type looks like here: a post with a text, made by a user. */
const ITEM_TYPES = `itemTypes:
  - id: post
    name: Post
    kind: CONTENT
    fields: [{ name: text, type: STRING }, { name: author, type: RELATED_ITEM, itemTypeIds: [user] }]
    roles: { creator: author }
  - { id: user, name: User, kind: USER, fields: [] }
actions:
  - { id: label, name: Label, kind: CUSTOMER_DEFINED_ACTION, itemTypeIds: [post], callback: { url: "http://127.0.0.1:9/hooks" } }`;

const rule = (signal: string) => `rules:
  - id: check
    name: Check
    status: LIVE
    itemTypeIds: [post]
    actionIds: [label]
    conditionSet: { conjunction: OR, conditions: [ { input: { field: text }, signal: ${signal} } ] }`;

/**
 * An organization's classifier that never answers, with the longest timeout there is (HTTP_SIGNAL's
 * timeoutMs, 30 s), holds each of its evaluations that long. A flood of its items must not hold
 * every evaluation handler: another organization's items are still evaluated meanwhile (the wait
 * for it, 20 s at most, ends before the classifier's timeouts free any handler).
 */
describe("an organization's classifier that never answers", () => {
  const dataDir = freshDataDir();
  let classifier: Server;
  let asked = 0;
  let warden: RunningWarden;
  let slowKey: string;
  let otherKey: string;

  beforeAll(async () => {
    classifier = createServer((req) => {
      req.resume();
      asked++;
    });
    await new Promise<void>((r) => classifier.listen(0, '127.0.0.1', r));
    const { port } = classifier.address() as { port: number };
    const slow = join(dataDir, 'slow.yaml');
    writeFileSync(
      slow,
      `org: { id: slow, name: Slow }\n${ITEM_TYPES}\n${rule(`{ type: HTTP_SIGNAL, args: { url: "http://127.0.0.1:${port}/classify", timeoutMs: 30000 } }, comparator: GT, value: 0.5`)}\n`,
    );
    const other = join(dataDir, 'other.yaml');
    writeFileSync(
      other,
      `org: { id: other, name: Other }\n${ITEM_TYPES}\n${rule('{ type: TEXT_CONTAINS, args: { terms: [spam] } }, comparator: EQUALS, value: true')}\n`,
    );
    const env = testEnv(dataDir);
    const out = await runCliBatch(env, [
      ['apply', slow],
      ['apply', other],
      ['api-key', 'create', '--org', 'slow'],
      ['api-key', 'create', '--org', 'other'],
    ]);
    slowKey = out[2]!.at(-1)!;
    otherKey = out[3]!.at(-1)!;
    warden = await startWarden(env);
  });
  afterAll(async () => {
    // Killed: a SIGTERM lets the evaluations in flight end, which waits out the classifier's 30 s.
    await warden?.stop('SIGKILL');
    classifier?.closeAllConnections();
    await new Promise<void>((r) => (classifier ? classifier.close(() => r()) : r()));
  });

  const submit = (key: string, items: unknown[]) =>
    fetch(`${warden.url}/api/v1/items/async`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      body: JSON.stringify({ items }),
    });

  it('holds at most 64 of the 80 evaluation handlers; the other organization is evaluated meanwhile', async () => {
    // 100 items of 10 users (16 evaluations per user at once): enough to fill all 80 handlers without the organization's limit.
    const flood = Array.from({ length: 100 }, (_, i) => ({
      id: `f${i}`,
      typeId: 'post',
      data: { text: `text ${i}`, author: { id: `u${i % 10}`, typeId: 'user' } },
    }));
    expect((await submit(slowKey, flood)).status).toBe(202);
    await waitFor(() => asked >= 64, 'the classifier to be asked by 64 evaluations');

    expect((await submit(otherKey, [{ id: 'o1', typeId: 'post', data: { text: 'spam here', author: { id: 'v', typeId: 'user' } } }])).status).toBe(202);
    const evaluation = await waitFor(async () => {
      const res = await fetch(`${warden.url}/api/v1/items/post/o1/evaluations`, { headers: { 'x-api-key': otherKey } });
      const body = (await res.json()) as { evaluations: Array<{ actions: Array<{ id: string }> }> };
      return body.evaluations[0];
    }, "the other organization's evaluation");
    expect(evaluation.actions.map((a) => a.id)).toEqual(['label']);
    // The slow organization's evaluations still wait: 64 of them, each on its classifier request.
    expect(asked).toBe(64);
    expect((await fetch(`${warden.url}/health/live`)).status).toBe(200);
  });
});
