import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXAMPLE, EXAMPLE_CANDIDATE_RULE, EXAMPLE_IDP_CERT, eventCount, exampleText, exampleWith, rawLog, writeConfig } from '../support/config-files.js';
import { waitFor } from '../support/wait-for.js';
import { createKey, createOrgWithKey, freshDataDir, runCli, type RunningWarden, startWarden, testEnv } from '../support/warden-process.js';

const SECRETS = { ACME_HOOK_TOKEN: 'hook-token-s3cret', ACME_IDP_CERT: EXAMPLE_IDP_CERT };

describe('configuration as code, end to end', () => {
  const dataDir = freshDataDir();
  const env = testEnv(dataDir, SECRETS);
  let warden: RunningWarden;
  let key: string;

  beforeAll(async () => {
    warden = await startWarden(env);
    const applied = await runCli(['apply', EXAMPLE], env);
    expect(applied.stderr).not.toMatch(/problem/);
    expect(applied.code).toBe(0);
    key = await createKey(env, 'acme');
  });
  afterAll(async () => {
    await warden?.stop();
  });

  const get = async (path: string, apiKey = key) => {
    const res = await fetch(warden.url + path, { headers: { 'x-api-key': apiKey } });
    expect(res.status).toBe(200);
    return res.json() as Promise<Record<string, Array<Record<string, unknown>>>>;
  };

  it('serves exactly the configured policies with every field of the spec', async () => {
    const { policies } = await get('/api/v1/policies/');
    expect(policies).toEqual([
      {
        id: 'csam',
        name: 'Child sexual abuse material',
        parentId: null,
        policyText: null,
        enforcementGuidelines: null,
        policyType: 'CHILD_SAFETY',
        semanticVersion: 1,
        userStrikeCount: 10,
        applyUserStrikeCountConfigToChildren: false,
        penalty: 'SEVERE',
      },
      {
        id: 'spam',
        name: 'Spam',
        parentId: null,
        policyText: 'Unsolicited bulk content.',
        enforcementGuidelines: 'Remove links to known spam domains.',
        policyType: 'SPAM',
        semanticVersion: 1,
        userStrikeCount: 1,
        applyUserStrikeCountConfigToChildren: true,
        penalty: 'LOW',
      },
      {
        id: 'spam-links',
        name: 'Spam links',
        parentId: 'spam',
        policyText: null,
        enforcementGuidelines: null,
        policyType: null,
        semanticVersion: 1,
        userStrikeCount: 1,
        applyUserStrikeCountConfigToChildren: false,
        penalty: 'LOW',
      },
      expect.objectContaining({ id: 'violence', penalty: 'HIGH', userStrikeCount: 3, semanticVersion: 1 }),
    ]);
  });

  it('serves the custom and built-in actions, never their callbacks', async () => {
    const body = await get('/api/v1/actions');
    const ids = body.actions.map((a) => a.id);
    expect(ids).toEqual(['enqueue-to-mrt', 'enqueue-to-child-safety', 'ban-user', 'child-safety-report', 'remove', 'review']);
    expect(body.actions.find((a) => a.id === 'remove')).toEqual({
      id: 'remove',
      name: 'Remove content',
      description: 'Hide the item from everyone.',
      actionType: 'CUSTOM_ACTION',
      applyUserStrikes: true,
      penalty: 'MEDIUM',
      itemTypeIds: ['post', 'thread'],
      parameters: [{ name: 'durationDays', type: 'NUMBER', required: false }],
    });
    expect(body.actions.find((a) => a.id === 'review')).toMatchObject({ actionType: 'ENQUEUE_TO_MRT', description: null, penalty: 'NONE' });
    expect(body.actions.find((a) => a.id === 'enqueue-to-mrt')).toMatchObject({
      actionType: 'ENQUEUE_TO_MRT',
      itemTypeIds: ['post', 'thread', 'user'],
    });
    expect(JSON.stringify(body)).not.toMatch(/hook-token|callback|platform\.example/);
  });

  it('serves item types with fields and roles', async () => {
    const { itemTypes } = await get('/api/v1/item_types/');
    expect(itemTypes.map((t) => t.id)).toEqual(['post', 'thread', 'user']);
    const post = itemTypes[0]!;
    expect(post).toMatchObject({ id: 'post', name: 'Post', kind: 'CONTENT', version: '1' });
    expect(post['roles']).toEqual({ creator: 'author', createdAt: 'createdAt', thread: 'thread' });
    expect((post['fields'] as unknown[])[0]).toEqual({ name: 'text', type: 'STRING', required: true, array: false, itemTypeIds: [] });
    expect((post['fields'] as unknown[])[2]).toEqual({ name: 'author', type: 'RELATED_ITEM', required: true, array: false, itemTypeIds: ['user'] });
    expect(itemTypes[2]).toMatchObject({ kind: 'USER', version: null, roles: { displayName: 'name' } });
  });

  it('keeps secrets out of the log in plaintext', () => {
    const log = rawLog(dataDir);
    expect(log).toContain('ActionDefined');
    expect(log).not.toContain(SECRETS.ACME_HOOK_TOKEN);
    expect(log).not.toContain(SECRETS.ACME_IDP_CERT);
  });

  it('appends nothing when the same file is applied again', async () => {
    const before = eventCount(dataDir);
    const again = await runCli(['apply', EXAMPLE], env);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('No changes');
    expect(eventCount(dataDir)).toBe(before);
  });

  it('backtests the example candidate rule (examples/candidate-rule.yaml, docs/rules.md) against the example organization, recording nothing', async () => {
    const before = eventCount(dataDir);
    const backtest = await runCli(['backtest', '--org', 'acme', '--rule-file', EXAMPLE_CANDIDATE_RULE], env);
    expect(backtest.code, backtest.stderr).toBe(0);
    expect(backtest.stdout).toContain('Backtest (nothing recorded or published) of rule spam-links-any-user');
    expect(eventCount(dataDir)).toBe(before);
  });

  it('bumps a policy semanticVersion when its name changes, visible to the running server', async () => {
    const file = writeConfig(exampleWith('name: Spam\n', 'name: Spam and scams\n'));
    const applied = await runCli(['apply', file], env);
    expect(applied.stdout).toContain('updated policy spam');
    const spam = await waitFor(async () => {
      const found = (await get('/api/v1/policies')).policies.find((p) => p.id === 'spam');
      return found?.['semanticVersion'] === 2 && found;
    }, 'policy spam at semanticVersion 2 in GET /api/v1/policies');
    expect(spam).toMatchObject({ name: 'Spam and scams', semanticVersion: 2 });
  });

  it('leaves a rule missing from the file alone, and archives it with --prune', async () => {
    const withoutRule = exampleWith(/ {2}- id: new-account-burst[\s\S]*?(?=\nqueues:)/, '').replace('name: Spam\n', 'name: Spam and scams\n');
    const file = writeConfig(withoutRule);
    const archivedBefore = eventCount(dataDir, "type = 'RuleArchived'");
    const kept = await runCli(['apply', file], env);
    expect(kept.code).toBe(0);
    expect(kept.stdout).toContain('left alone rule new-account-burst (not in the file; --prune archives it)');
    expect(eventCount(dataDir, "type = 'RuleArchived'")).toBe(archivedBefore);
    const dry = await runCli(['apply', file, '--prune', '--dry-run'], env);
    expect(dry.stdout).toContain('would archive rule new-account-burst');
    expect(eventCount(dataDir, "type = 'RuleArchived'")).toBe(archivedBefore);
    const pruned = await runCli(['apply', file, '--prune'], env);
    expect(pruned.stdout).toContain('archived rule new-account-burst');
    expect(eventCount(dataDir, "type = 'RuleArchived'")).toBe(archivedBefore + 1);
    expect(eventCount(dataDir, "type = 'RuleDefined'")).toBe(4);
  });

  it("never shows one organization's catalog to another's key", async () => {
    const globexKey = await createOrgWithKey(env, 'globex');
    expect((await get('/api/v1/policies', globexKey)).policies).toEqual([]);
    expect((await get('/api/v1/item_types', globexKey)).itemTypes).toEqual([]);
    expect((await get('/api/v1/actions', globexKey)).actions.map((a) => a.id)).toEqual(['enqueue-to-mrt', 'enqueue-to-child-safety']);
    expect((await get('/api/v1/policies')).policies.length).toBe(4);
  });
});

describe('invalid configuration files', () => {
  const dataDir = freshDataDir();
  const env = testEnv(dataDir, SECRETS);

  beforeAll(async () => {
    expect((await runCli(['org', 'create', '--id', 'acme', '--name', 'Acme Social'], env)).code).toBe(0);
  });

  const mistakes: Array<[string, string, string | RegExp, string]> = [
    [
      'a rule naming an unknown action',
      'rules[0].actionIds[0]',
      'actionIds: [remove]\n    policyIds: [spam-links]',
      'actionIds: [delete]\n    policyIds: [spam-links]',
    ],
    ['a policy whose parent does not exist', 'policies[1].parentId', 'parentId: spam,', 'parentId: spammy,'],
    ['a cycle in the policy tree', 'parentId', '    parentId: null\n    policyText', '    parentId: spam-links\n    policyText'],
    [
      'an action assigned to an unknown item type',
      'actions[2].itemTypeIds[0]',
      'kind: ENQUEUE_TO_MRT, itemTypeIds: [post]',
      'kind: ENQUEUE_TO_MRT, itemTypeIds: [comment]',
    ],
    ['a bad regex', 'textBanks[0].regexes[0]', "regexes: ['\\bwin\\s+\\$\\d+']", "regexes: ['(unclosed']"],
    ['a malformed hash', 'hashBanks[0].hashes[0]', 'hashes: [f8f8f0cee0', 'hashes: [zz8f0cee0'],
    ['a wrong comparator', 'rules[0].conditionSet.conditions[1].conditions[1].comparator', 'comparator: LT, value: 2', 'comparator: SMALLER, value: 2'],
    ['a missing required field', 'rules[0].name', '    name: Spam links\n    status: LIVE', '    status: LIVE'],
    ['a wrong enum value', 'policies[2].penalty', 'penalty: HIGH', 'penalty: EXTREME'],
    ['a missing environment variable', 'sso.cert', '${ACME_IDP_CERT}', '${ACME_MISSING_CERT}'],
    ['SAML enabled with an empty certificate', 'sso.cert: is empty', 'cert: ${ACME_IDP_CERT}', 'cert: ""'],
    ['a duplicate id', 'queues[1].id', '{ id: appeals, name: Appeals', '{ id: default, name: Appeals'],
    ['a routing rule naming an unknown queue', 'routingRules[0].queueId', 'queueId: spam\n', 'queueId: nowhere\n'],
  ];

  it.each(mistakes)('rejects %s with its path, a non-zero exit, and no change', async (_name, path, from, to) => {
    const before = eventCount(dataDir);
    const result = await runCli(['apply', writeConfig(exampleWith(from, to))], env);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('nothing was applied');
    expect(result.stderr).toContain(path);
    expect(eventCount(dataDir)).toBe(before);
    expect(result.stdout).toBe('');
  });

  it('applies the untouched example afterwards', async () => {
    expect(exampleText()).toContain('org:');
    const ok = await runCli(['apply', EXAMPLE], env);
    expect(ok.code).toBe(0);
    expect(eventCount(dataDir)).toBeGreaterThan(0);
  });
});
