import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authoredType, USER_TYPE, writeConfig } from '../support/config-files.js';
import { expectErrorBody } from '../support/error-body.js';
import { waitUntilProcessed } from '../support/projection-progress.js';
import { type ReceivedCallback, startReceiver } from '../support/review-fixture.js';
import { waitFor } from '../support/wait-for.js';
import { freshDataDir, runCliBatch, type RunningWarden, startWarden, testEnv } from '../support/warden-process.js';
import { removeSpamRule } from '../../bench/support/strikes-config.mjs';

/**
 * Organization `scores`: posts by users; `remove` (penalty MEDIUM, weight 3) for "buy pills"
 * (policy spam, LOW, 1) and for "hurt" (policy violence, HIGH, 9); `flag` (penalty NONE) when a
 * "probe" post's creator scores 3 or less. Default `scores:` weights and thresholds.
 */
const config = (callbackUrl: string) => `
org: { id: scores, name: Scores Org }
itemTypes:
${authoredType('post', 'Post')}
${USER_TYPE}
policies:
  - { id: spam, name: Spam, penalty: LOW }
  - { id: violence, name: Violence, penalty: HIGH }
actions:
  - { id: remove, name: Remove, kind: CUSTOMER_DEFINED_ACTION, itemTypeIds: [post], penalty: MEDIUM, callback: { url: ${callbackUrl}/hooks/remove } }
  - { id: flag, name: Flag, kind: CUSTOMER_DEFINED_ACTION, itemTypeIds: [post], penalty: NONE, callback: { url: ${callbackUrl}/hooks/flag } }
rules:
${removeSpamRule('spam-rule', 'Spam', '["buy pills"]')}
  - id: violence-rule
    name: Violence
    status: LIVE
    itemTypeIds: [post]
    actionIds: [remove]
    policyIds: [violence]
    conditionSet:
      conjunction: AND
      conditions:
        - { input: { field: text }, signal: { type: TEXT_CONTAINS, args: { terms: ["hurt"] } }, comparator: EQUALS, value: true }
  - id: low-score-watch
    name: Low-score creators
    status: LIVE
    itemTypeIds: [post]
    actionIds: [flag]
    conditionSet:
      conjunction: AND
      conditions:
        - { input: { field: text }, signal: { type: TEXT_CONTAINS, args: { terms: ["probe"] } }, comparator: EQUALS, value: true }
        - { input: { builtin: CREATOR }, signal: { type: USER_SCORE }, comparator: LTE, value: 3 }
`;

/** Another organization with the same user type and user ids. */
const OTHER = `
org: { id: other, name: Other Org }
itemTypes:
  - { id: user, name: User, kind: USER, fields: [{ name: name, type: STRING }] }
`;

/**
 * The worked examples, default weights (NONE 0, LOW 1, MEDIUM 3, HIGH 9, SEVERE 27) and thresholds
 * (≤ .01 → 5, ≤ .05 → 4, ≤ .10 → 3, ≤ .25 → 2, else 1). `remove` + spam = 3 + 1 = 4 points;
 * `remove` + violence = 3 + 9 = 12.
 */
const EXAMPLES = [
  // 10 submissions, nothing actioned: 0 / 10 = 0.
  { user: 'u5', submissions: 10, spam: 0, both: 0, score: 5 },
  // 100 submissions, one spam item: 4 / 100 = 0.04.
  { user: 'u4', submissions: 100, spam: 1, both: 0, score: 4 },
  // 50 submissions, one spam item: 4 / 50 = 0.08.
  { user: 'u3', submissions: 50, spam: 1, both: 0, score: 3 },
  // 100 submissions, two items each caught by both rules, counted once at their most severe pair:
  // 2 × 12 / 100 = 0.24 (counting every pair would make 2 × 16 / 100 = 0.32 → 1).
  { user: 'u2', submissions: 100, spam: 0, both: 2, score: 2 },
  // 4 submissions, one spam item: 4 / 4 = 1.
  { user: 'u1', submissions: 4, spam: 1, both: 0, score: 1 },
] as const;

describe('user scores, end to end', () => {
  const dataDir = freshDataDir();
  let env: NodeJS.ProcessEnv;
  let warden: RunningWarden;
  let key: string;
  let otherKey: string;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;

  beforeAll(async () => {
    receiver = await startReceiver();
    env = testEnv(dataDir);
    // One CLI process for the set-up (test/support/warden-process.ts, runCliBatch).
    const [, keyMade, , otherMade] = await runCliBatch(env, [
      ['apply', writeConfig(config(receiver.url))],
      ['api-key', 'create', '--org', 'scores'],
      ['apply', writeConfig(OTHER, 'other.yaml')],
      ['api-key', 'create', '--org', 'other'],
    ]);
    [key, otherKey] = [keyMade!.at(-1)!, otherMade!.at(-1)!];
    warden = await startWarden(env);
  });
  afterAll(async () => {
    await warden?.stop();
    await receiver?.close();
  });

  const submit = async (items: unknown[]) => {
    const res = await fetch(`${warden.url}/api/v1/items/async`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      body: JSON.stringify({ items }),
    });
    expect(res.status, await res.clone().text()).toBe(202);
  };
  const post = (id: string, user: string, text: string) => ({ id, typeId: 'post', data: { text, author: { id: user, typeId: 'user' } } });
  const scoreOf = (query: string, apiKey = key) => fetch(`${warden.url}/api/v1/user_scores?${query}`, { headers: { 'x-api-key': apiKey } });
  const callbacksFor = (path: string) =>
    receiver.received.filter((c: ReceivedCallback) => c.path === path).map((c) => JSON.parse(c.body) as { item: { id: string } });

  it('answers the worked example of every score value 1 to 5 as a bare JSON number', async () => {
    for (const example of EXAMPLES) {
      const items = Array.from({ length: example.submissions }, (_, i) => {
        const text = i < example.spam ? 'buy pills here' : i < example.spam + example.both ? 'buy pills or I hurt you' : `hello ${i}`;
        return post(`${example.user}-p${i}`, example.user, text);
      });
      await submit(items);
    }
    const actionedItems = EXAMPLES.reduce((n, e) => n + e.spam + e.both, 0);
    await waitFor(() => callbacksFor('/hooks/remove').length >= actionedItems, `${actionedItems} remove callbacks`);
    await waitUntilProcessed(warden.url, dataDir, 'user-scores-v2', ['ItemSubmitted', 'ActionCallbackRequested']);

    for (const example of EXAMPLES) {
      const res = await scoreOf(`id=${example.user}&typeId=user`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      expect({ user: example.user, body: await res.text() }).toEqual({ user: example.user, body: String(example.score) });
    }
  });

  it('scores a user Warden has never seen 5', async () => {
    const res = await scoreOf('id=nobody&typeId=user');
    expect(res.status).toBe(200);
    expect(await res.json()).toBe(5);
  });

  it('keeps organizations apart: the same user id in another organization is another user', async () => {
    await waitFor(async () => (await (await scoreOf('id=u1&typeId=user')).json()) === 1, 'u1 to score 1 in its organization');
    const res = await scoreOf('id=u1&typeId=user', otherKey);
    expect(res.status).toBe(200);
    expect(await res.json()).toBe(5);
  });

  it('answers 400 with a pointer when id or typeId is missing, or typeId is not a USER item type of the organization', async () => {
    await expectErrorBody(await scoreOf('typeId=user'), 400, '/errors/invalid-user-input', '/id');
    await expectErrorBody(await scoreOf('id=u1'), 400, '/errors/invalid-user-input', '/typeId');
    await expectErrorBody(await scoreOf('id=&typeId=user'), 400, '/errors/invalid-user-input', '/id');
    // Not UTF-8 (a lone surrogate): it was read as U+FFFD and scored as that user (issue 30).
    await expectErrorBody(await scoreOf('id=%ED%A0%80&typeId=user'), 400, '/errors/invalid-user-input', '/id');
    await expectErrorBody(await scoreOf('id=u1&typeId=post'), 400, '/errors/invalid-user-input', '/typeId');
    await expectErrorBody(await scoreOf('id=u1&typeId=account'), 400, '/errors/invalid-user-input', '/typeId');
    // `post` is a type of `scores`, not of `other`.
    await expectErrorBody(await scoreOf('id=u1&typeId=post', otherKey), 400, '/errors/invalid-user-input', '/typeId');
  });

  it('answers 401 without a valid API key', async () => {
    await expectErrorBody(await fetch(`${warden.url}/api/v1/user_scores?id=u1&typeId=user`), 401, '/errors/unauthorized');
    await expectErrorBody(await scoreOf('id=u1&typeId=user', 'not-a-key'), 401, '/errors/unauthorized');
  });

  it('fires a rule on USER_SCORE LTE 3 for a low-score creator and not for a clean one', async () => {
    await waitFor(async () => (await (await scoreOf('id=u1&typeId=user')).json()) === 1, 'u1 to score 1');
    await submit([post('probe-low', 'u1', 'probe'), post('probe-clean', 'u5', 'probe')]);
    const evaluation = async (id: string) => {
      const res = await fetch(`${warden.url}/api/v1/items/post/${id}/evaluations`, { headers: { 'x-api-key': key } });
      const body = (await res.json()) as { evaluations: Array<{ rules: Array<{ id: string; outcome: string }>; actions: Array<{ id: string }> }> };
      return body.evaluations[0];
    };
    const low = await waitFor(() => evaluation('probe-low'), 'the evaluation of probe-low');
    const clean = await waitFor(() => evaluation('probe-clean'), 'the evaluation of probe-clean');
    expect(low.rules.find((r) => r.id === 'low-score-watch')?.outcome).toBe('passed');
    expect(low.actions.map((a) => a.id)).toEqual(['flag']);
    expect(clean.rules.find((r) => r.id === 'low-score-watch')?.outcome).toBe('failed');
    expect(clean.actions).toEqual([]);
    await waitFor(() => callbacksFor('/hooks/flag').length >= 1, 'the flag callback');
    await waitUntilProcessed(warden.url, dataDir, 'enforcement-actions', ['ActionCallbackRequested']);
    expect(callbacksFor('/hooks/flag').map((c) => c.item.id)).toEqual(['probe-low']);
  });
});
