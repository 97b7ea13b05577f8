import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventCount } from '../support/config-files.js';
import { type Receiver, startReceiver } from '../support/http-receiver.js';
import { expectErrorBody } from '../support/error-body.js';
import { waitUntilProcessed } from '../support/projection-progress.js';
import { waitFor } from '../support/wait-for.js';
import { freshDataDir, runCli, type RunningWarden, startConfigured, testEnv } from '../support/warden-process.js';
import Database from 'better-sqlite3';

const CONFIG = join(import.meta.dirname, '../fixtures/rules-org.yaml');

/** Publication events of the log, by type, as [itemId, actionId] pairs. */
function publications(dataDir: string, type: string): Array<[string, string]> {
  const db = new Database(join(dataDir, 'warden.db'), { readonly: true });
  try {
    return (db.prepare('SELECT data FROM events WHERE type = ? ORDER BY position').all(type) as Array<{ data: string }>).map((r) => {
      const d = JSON.parse(r.data) as { item: { id: string }; action?: { id: string }; actionId?: string };
      return [d.item.id, d.action?.id ?? d.actionId ?? ''];
    });
  } finally {
    db.close();
  }
}

describe('rules engine, end to end', () => {
  const dataDir = freshDataDir();
  let classifier: Receiver;
  let env: NodeJS.ProcessEnv;
  let warden: RunningWarden;
  let key: string;

  beforeAll(async () => {
    // The classifier errors, so HTTP_SIGNAL is unknown; but for texts that say `roomy` or `bulky`
    // it answers a score padded to just under or just over the largest answer read (16 KiB).
    classifier = await startReceiver((req, res) => {
      const size = /\broomy\b/.test(req.body) ? 16 * 1024 - 16 : /\bbulky\b/.test(req.body) ? 16 * 1024 + 16 : undefined;
      if (size === undefined) {
        res.statusCode = 500;
        res.end('{"error":"down"}');
        return;
      }
      const answer = (pad: string) => `{"score":0.9,"pad":"${pad}"}`;
      res.setHeader('content-type', 'application/json');
      res.end(answer('x'.repeat(size - answer('').length)));
    });
    env = testEnv(dataDir, {
      CLASSIFIER_URL: classifier.url + '/score',
      // The fixture's callback URLs lead nowhere: keep retries out of the event counts.
      WARDEN_CALLBACK_RETRY_SCHEDULE: '1h',
    });
    // The configuration and the key in one CLI process (runCliBatch), before the server starts.
    ({ warden, key } = await startConfigured(env, CONFIG, 'shop'));
  });
  afterAll(async () => {
    await warden?.stop();
    await classifier?.close();
  });

  const submit = (items: unknown[]) =>
    fetch(warden.url + '/api/v1/items/async/', {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      body: JSON.stringify({ items }),
    });
  const post = (id: string, text: string, extra: Record<string, unknown> = {}) => ({
    id,
    typeId: 'post',
    data: { text, author: { id: 'u1', typeId: 'user' }, ...extra },
  });
  const evaluations = async (id: string) => {
    const res = await fetch(`${warden.url}/api/v1/items/post/${id}/evaluations`, { headers: { 'x-api-key': key } });
    expect(res.status).toBe(200);
    return ((await res.json()) as { evaluations: Array<{ version: number; rules: Array<Record<string, unknown>>; actions: Array<Record<string, unknown>> }> })
      .evaluations;
  };
  const evaluated = (id: string, versions = 1) =>
    waitFor(async () => {
      const list = await evaluations(id);
      return list.length >= versions && list;
    }, `${versions} evaluation(s) of item ${id}`);

  it('accepts a batch with 202 and rejects an invalid one whole, with a pointer per problem', async () => {
    const ok = await submit([post('p-ok', 'hello'), post('p-ok2', 'world')]);
    expect(ok.status).toBe(202);
    const body = (await ok.json()) as { accepted: number; requestId: string };
    expect(body).toEqual({ accepted: 2, requestId: ok.headers.get('x-request-id') });

    const before = eventCount(dataDir, "type = 'ItemSubmitted'");
    const bad = await submit([post('p-fine', 'x'), { id: 'p-bad', typeId: 'post', data: { likes: 'many' } }, { id: 'p-x', typeId: 'comment', data: {} }]);
    const errors = ((await bad.clone().json()) as { errors: Array<{ pointer: string }> }).errors.map((e) => e.pointer);
    await expectErrorBody(bad, 400, '/errors/invalid-user-input');
    expect(errors).toEqual(['/items/1/data/text', '/items/1/data/likes', '/items/2/typeId']);
    expect(eventCount(dataDir, "type = 'ItemSubmitted'")).toBe(before);
    await expectErrorBody(await submit([]), 400, '/errors/invalid-user-input', '/items');
  });

  it('publishes each action once per item, merging the policies and rules that chose it', async () => {
    expect((await submit([post('p-buy', 'Buy now, buy!')])).status).toBe(202);
    const [evaluation] = await evaluated('p-buy');
    const remove = evaluation!.actions.find((a) => a['id'] === 'remove');
    const byId = (a: { id: string }, b: { id: string }) => a.id.localeCompare(b.id);
    expect({
      ...remove,
      policies: [...(remove!['policies'] as Array<{ id: string }>)].sort(byId),
      rules: [...(remove!['rules'] as Array<{ id: string }>)].sort(byId),
    }).toEqual({
      id: 'remove',
      kind: 'CUSTOMER_DEFINED_ACTION',
      policies: [
        { id: 'scam', name: 'Scam', penalty: 'HIGH' },
        { id: 'spam', name: 'Spam', penalty: 'LOW' },
      ],
      rules: [
        { id: 'buy', name: 'Buy anything' },
        { id: 'buy-now', name: 'Buy now' },
      ],
    });
    expect(evaluation!.actions.map((a) => a['id']).sort()).toEqual(['enqueue-to-mrt', 'remove']);
    expect(publications(dataDir, 'ActionCallbackRequested').filter(([item]) => item === 'p-buy')).toEqual([['p-buy', 'remove']]);
    expect(publications(dataDir, 'ReviewEnqueueRequested').filter(([item]) => item === 'p-buy')).toEqual([['p-buy', 'enqueue-to-mrt']]);
  });

  it('records BACKGROUND rules without publishing their actions', async () => {
    await submit([post('p-bg', 'I want to buy')]);
    const [evaluation] = await evaluated('p-bg');
    expect(evaluation!.rules.find((r) => r['id'] === 'shadow')).toMatchObject({ status: 'BACKGROUND', outcome: 'passed' });
    expect(evaluation!.actions.map((a) => a['id'])).toEqual(['remove']);
    expect(publications(dataDir, 'ActionCallbackRequested').filter(([item, action]) => item === 'p-bg' && action === 'ban')).toEqual([]);
    expect(evaluation!.rules.find((r) => r['id'] === 'draft')).toBeUndefined();
  });

  it('evaluates XOR over a nested set per the model', async () => {
    await submit([
      post('x-red', 'red'),
      post('x-blue', 'blue', { likes: 3 }),
      post('x-both', 'red and blue', { likes: 3 }),
      post('x-blue-popular', 'red and blue', { likes: 50 }),
      post('x-none', 'green'),
    ]);
    const labelled = async (id: string) => (await evaluated(id))[0]!.actions.some((a) => a['id'] === 'label');
    expect(await labelled('x-red')).toBe(true);
    expect(await labelled('x-blue')).toBe(true);
    expect(await labelled('x-both')).toBe(false);
    expect(await labelled('x-blue-popular')).toBe(true);
    expect(await labelled('x-none')).toBe(false);
  });

  it('matches a regular expression against a long text off the evaluating thread, async and sync alike', async () => {
    // 40,000 characters: past LONG_TEXT_LENGTH, so the RegexPool's thread (the bundle's worker entry) answers.
    const long = 'lorem ipsum dolor giveaway sit amet '.repeat(1_100);
    await submit([post('long-hit', `${long} giveaway of free crypto`), post('long-miss', long)]);
    const rule = async (id: string) => (await evaluated(id))[0]!.rules.find((r) => r['id'] === 'long-giveaway');
    expect(await rule('long-hit')).toMatchObject({ outcome: 'passed' });
    expect(await rule('long-miss')).toMatchObject({ outcome: 'failed' });
    expect(publications(dataDir, 'ActionCallbackRequested').filter(([item]) => item.startsWith('long-'))).toEqual([['long-hit', 'label']]);

    const sync = await fetch(warden.url + '/api/v1/content/', {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      body: JSON.stringify({ contentId: 'long-sync', contentType: 'post', content: { text: `${long} giveaway: crypto` }, sync: true }),
    });
    expect(sync.status).toBe(200);
    const body = (await sync.json()) as { rules: Array<{ id: string; result: string }>; actionsTriggered: Array<{ id: string }> };
    expect(body.rules.find((r) => r.id === 'long-giveaway')?.result).toBe('passed');
    expect(body.actionsTriggered.map((a) => a.id)).toContain('label');
  });

  it('makes an erroring signal unknown: no action, and the evaluation shows why', async () => {
    await submit([post('p-violent', 'something violent')]);
    const [evaluation] = await evaluated('p-violent');
    const rule = evaluation!.rules.find((r) => r['id'] === 'classifier')!;
    expect(rule['outcome']).toBe('unknown');
    const conditions = rule['conditions'] as Array<Record<string, unknown>>;
    expect(conditions.some((c) => c['outcome'] === 'unknown' && typeof c['error'] === 'string')).toBe(true);
    expect(evaluation!.actions.some((a) => a['id'] === 'escalate')).toBe(false);
    expect(classifier.requests.length).toBeGreaterThan(0);
  });

  it("refuses a classifier's answer larger than 16 KiB unread: the leaf is unknown and says why; one just under it is read", async () => {
    await submit([post('p-violent-roomy', 'something violent roomy'), post('p-violent-bulky', 'something violent bulky')]);
    const [roomy] = await evaluated('p-violent-roomy');
    expect(roomy!.rules.find((r) => r['id'] === 'classifier')!['outcome']).toBe('passed');
    expect(roomy!.actions.some((a) => a['id'] === 'escalate')).toBe(true);
    const [bulky] = await evaluated('p-violent-bulky');
    const rule = bulky!.rules.find((r) => r['id'] === 'classifier')!;
    expect(rule['outcome']).toBe('unknown');
    const conditions = rule['conditions'] as Array<Record<string, unknown>>;
    expect(conditions.find((c) => c['outcome'] === 'unknown')?.['error']).toMatch(/answered more than 16384 bytes/);
    expect(bulky!.actions.some((a) => a['id'] === 'escalate')).toBe(false);
  });

  it('evaluates a re-submitted item again as a new version, newest first', async () => {
    await submit([post('p-edit', 'hello')]);
    await evaluated('p-edit');
    await submit([post('p-edit', 'buy now')]);
    const list = await evaluated('p-edit', 2);
    expect(list.map((e) => e.version)).toEqual([1, 0]);
    expect(list[0]!.actions.map((a) => a['id'])).toContain('remove');
    expect(list[1]!.actions).toEqual([]);
  });

  it('caps a rule at maxDailyActions: 50 matching items concurrently, exactly 5 actions', async () => {
    await submit(Array.from({ length: 50 }, (_, i) => post(`cap-${i}`, 'capme please')));
    for (let i = 0; i < 50; i++) await evaluated(`cap-${i}`);
    const fired = publications(dataDir, 'ActionCallbackRequested').filter(([, action]) => action === 'capped-action');
    expect(fired).toHaveLength(5);
    expect(new Set(fired.map(([item]) => item)).size).toBe(5);
    const results = await Promise.all(Array.from({ length: 50 }, async (_, i) => (await evaluations(`cap-${i}`))[0]!));
    const rule = (e: (typeof results)[number]) => e.rules.find((r) => r['id'] === 'capped')!;
    expect(results.filter((e) => rule(e)['outcome'] === 'passed')).toHaveLength(50);
    expect(results.filter((e) => rule(e)['capped'] === true)).toHaveLength(45);
    expect(results.filter((e) => e.actions.some((a) => a['id'] === 'capped-action'))).toHaveLength(5);
    expect(eventCount(dataDir, "type = 'RuleDailyActionCounted'")).toBe(5);
  });

  it('retroacts a new rule over stored items once, and backtests a candidate without recording anything', async () => {
    await submit([post('old-1', 'retro item one'), post('old-2', 'retro item two'), post('old-3', 'nothing')]);
    for (const id of ['old-1', 'old-2', 'old-3']) await evaluated(id);
    const withRule = readFileSync(CONFIG, 'utf8').replace(
      'rules:\n',
      `rules:
  - id: retro
    name: Retro
    status: LIVE
    itemTypeIds: [post]
    actionIds: [label]
    conditionSet: { conjunction: AND, conditions: [{ input: { field: text }, signal: { type: TEXT_CONTAINS, args: { terms: [retro] } }, comparator: EQUALS, value: true }] }
`,
    );
    const file = join(freshDataDir(), 'with-retro.yaml');
    writeFileSync(file, withRule);
    expect((await runCli(['apply', file], env)).code).toBe(0);

    const retro = () => publications(dataDir, 'ActionCallbackRequested').filter(([item, action]) => item.startsWith('old-') && action === 'label');
    const first = await runCli(['retroact', '--org', 'shop', '--rule', 'retro'], env);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toMatch(/Retroaction of rule retro: \d+ item\(s\) scanned, \d+ matched/);
    expect(first.stdout).toContain('matched post/old-1');
    expect(first.stdout).toContain(', 2 action(s) published');
    expect(retro()).toEqual([
      ['old-1', 'label'],
      ['old-2', 'label'],
    ]);
    const again = await runCli(['retroact', '--org', 'shop', '--rule', 'retro'], env);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain(', 0 action(s) published');
    expect(retro()).toHaveLength(2);

    const candidate = join(freshDataDir(), 'candidate.yaml');
    writeFileSync(
      candidate,
      `id: candidate
name: Candidate
status: LIVE
itemTypeIds: [post]
actionIds: [ban]
conditionSet: { conjunction: AND, conditions: [{ input: { field: text }, signal: { type: TEXT_CONTAINS, args: { terms: [item] } }, comparator: EQUALS, value: true }] }
`,
    );
    const before = eventCount(dataDir);
    const backtest = await runCli(['backtest', '--org', 'shop', '--rule-file', candidate], env);
    expect(backtest.code, backtest.stderr).toBe(0);
    expect(backtest.stdout).toMatch(
      /Backtest \(nothing recorded or published\) of rule candidate: \d+ item\(s\) scanned, 2 matched, 0 unknown, 0 action\(s\) published/,
    );
    expect(eventCount(dataDir)).toBe(before);

    writeFileSync(candidate, 'id: candidate\nname: Candidate\nactionIds: [nope]\nconditionSet: { conjunction: AND, conditions: [] }\n');
    const invalid = await runCli(['backtest', '--org', 'shop', '--rule-file', candidate], env);
    expect(invalid.code).toBe(1);
    expect(invalid.stderr).toContain('rule.actionIds[0]');
    expect(invalid.stderr).toMatch(/: 2 problem\(s\); nothing was run:/);
    // A device named by mistake is refused before it is read (/dev/zero would be read until memory ran out).
    const device = await runCli(['backtest', '--org', 'shop', '--rule-file', '/dev/zero'], env);
    expect(device.code).toBe(1);
    expect(device.stderr).toContain('cannot read /dev/zero: not a regular file');
  });

  it('answers the legacy endpoint synchronously with what the async path records', async () => {
    const res = await fetch(warden.url + '/api/v1/content/', {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      body: JSON.stringify({ contentId: 'legacy-1', contentType: 'post', content: { text: 'buy now' }, userId: 'u9', sync: true }),
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as {
      contentId: string;
      rules: Array<{ id: string; result: string }>;
      actionsTriggered: Array<{ id: string; name: string }>;
    };
    expect(body.contentId).toBe('legacy-1');
    expect(body.actionsTriggered).toEqual(
      expect.arrayContaining([
        { id: 'remove', name: 'Remove' },
        { id: 'enqueue-to-mrt', name: 'Enqueue to manual review' },
      ]),
    );
    const [recorded] = await evaluated('legacy-1');
    expect(body.rules.map((r) => [r.id, r.result])).toEqual(recorded!.rules.map((r) => [r['id'], r['capped'] ? 'capped' : r['outcome']]));
    expect(body.actionsTriggered.map((a) => a.id).sort()).toEqual(recorded!.actions.map((a) => a['id']).sort());
    // The worker handles the same submission too: once it has handled every submission in the
    // log, and the read model every evaluation, there is still exactly one of each.
    await waitUntilProcessed(warden.url, dataDir, 'rules-evaluation', ['ItemSubmitted']);
    await waitUntilProcessed(warden.url, dataDir, 'item-evaluations', ['ItemEvaluated']);
    expect(publications(dataDir, 'ItemEvaluated').filter(([item]) => item === 'legacy-1')).toHaveLength(1);
    expect(await evaluations('legacy-1')).toHaveLength(1);
    expect(publications(dataDir, 'ActionCallbackRequested').filter(([item]) => item === 'legacy-1')).toHaveLength(1);

    const async = await fetch(warden.url + '/api/v1/content', {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      body: JSON.stringify({ contentId: 'legacy-2', contentType: 'post', content: { text: 'hi' } }),
    });
    expect(async.status).toBe(202);
    const invalid = await fetch(warden.url + '/api/v1/content', {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      body: JSON.stringify({ contentId: 'legacy-3', contentType: 'post', content: { likes: 1 } }),
    });
    await expectErrorBody(invalid, 400, '/errors/invalid-user-input', '/content/text');
  });
});
