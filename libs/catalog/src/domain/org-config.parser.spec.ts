import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseDocument, stringify, type Document } from 'yaml';
import type { OrgConfig } from './catalog.model.js';
import { type ConfigProblem, parseOrgConfig, type ParseOptions, problemCount } from './org-config.parser.js';
import { MAX_ALIAS_EXPANSION } from './org-config/document-syntax.parser.js';

/** An example of every section of the file (docs/configuration-as-code.md, "The file"). */
const EXAMPLE = `org:
  id: acme                      # [a-z0-9-]+, unique
  name: Acme Social
  settings:
    requireDecisionReason: false
    requirePolicyForDecisions: false

itemTypes:
  - id: post                    # the typeId customers send
    name: Post                  # the typeName sent in callbacks
    kind: CONTENT               # CONTENT | USER | THREAD
    version: "1"                # optional; items may send typeVersion
    fields:
      - { name: text,      type: STRING,   required: true }
      - { name: images,    type: IMAGE,    array: true }
      - { name: author,    type: RELATED_ITEM, itemTypeIds: [user], required: true }
      - { name: createdAt, type: DATETIME }
      - { name: location,  type: GEOHASH }
      - { name: likes,     type: NUMBER }
      - { name: edited,    type: BOOLEAN }
      # types: STRING NUMBER BOOLEAN IMAGE AUDIO VIDEO GEOHASH DATETIME RELATED_ITEM URL
    roles:                      # which fields play known parts
      creator: author           # RELATED_ITEM naming the user who made it (CONTENT, THREAD)
      createdAt: createdAt
      # thread: <field>         # RELATED_ITEM naming the containing thread, if any
  - id: user
    name: User
    kind: USER
    fields:
      - { name: name, type: STRING }
    roles:
      displayName: name         # USER items

policies:
  - id: spam
    name: Spam
    parentId: null
    policyText: Unsolicited bulk content.
    enforcementGuidelines: Remove links to known spam domains.
    policyType: SPAM
    penalty: LOW                # NONE LOW MEDIUM HIGH SEVERE
    userStrikeCount: 1
    applyUserStrikeCountConfigToChildren: false
  - { id: spam-links, name: Spam links, parentId: spam, penalty: LOW, userStrikeCount: 1 }

actions:
  - id: remove
    name: Remove content
    description: Hide the item from everyone.
    kind: CUSTOMER_DEFINED_ACTION   # or ENQUEUE_TO_MRT, ENQUEUE_TO_CHILD_SAFETY
    itemTypeIds: [post]
    applyUserStrikes: true
    penalty: MEDIUM
    callback:
      url: https://platform.example/hooks/moderation
      headers: { Authorization: "Bearer \${ACME_HOOK_TOKEN}" }
    body: { severity: high }        # sent as \`custom\` in the callback
    parameters:                     # values a moderator may fill in; merged into \`custom\`
      - { name: durationDays, type: NUMBER, required: false }
  - { id: review, name: Send to review, kind: ENQUEUE_TO_MRT, itemTypeIds: [post] }

textBanks:
  - id: spam-domains
    name: Spam domains
    terms: [cheap-pills.example, free-money.example]
    regexes: ['\\bwin\\s+\\$\\d+']

hashBanks:
  - id: known-bad
    name: Known bad images
    hashType: PDQ                   # PDQ | MD5 | SHA256
    maxDistance: 31                 # PDQ only; default 31
    hashes: [f8f8f0cee0f4a84f06370a22038f63f0b36e2ed596621e1d33e6b39c4e9c9b22]
    hashesFile: banks/known-bad.txt # optional; one hash per line, relative to this file

rules:
  - id: spam-links
    name: Spam links
    status: LIVE                    # LIVE BACKGROUND DRAFT EXPIRED
    itemTypeIds: [post]
    tags: [spam]
    maxDailyActions: 1000           # optional hard cap per UTC day
    expiresAt: 2027-06-30T00:00:00Z # optional; the rule becomes EXPIRED then
    actionIds: [remove]
    policyIds: [spam-links]
    conditionSet:
      conjunction: AND              # AND OR XOR
      conditions:
        - input: { field: text }
          signal: { type: TEXT_BANK, args: { bankId: spam-domains } }
          comparator: EQUALS
          value: true
        - conjunction: OR           # a nested set
          conditions:
            - { input: { builtin: CREATOR }, signal: { type: USER_SCORE }, comparator: LTE, value: 3 }
            - { input: { field: likes }, comparator: LT, value: 2 }

queues:                             # review queues; a child-safety queue always exists (id child-safety)
  - { id: default, name: Default, isDefault: true }
  - { id: appeals, name: Appeals, isAppealsDefault: true }
  - { id: spam, name: Spam reports, lockTimeoutSeconds: 600 }

routingRules:                       # ordered; the first that passes picks the queue
  - id: spam-reports
    name: Spam reports
    queueId: spam
    itemTypeIds: [post]
    conditionSet:
      conjunction: OR
      conditions:
        - { input: { builtin: REPORTED_POLICY }, comparator: EQUALS, value: spam }
        - { input: { builtin: REPORT_REASON }, signal: { type: TEXT_CONTAINS, args: { terms: [spam] } }, comparator: EQUALS, value: true }
appealRoutingRules: []              # same shape, for appeals

strikes:
  windowDays: 90                    # strikes older than this stop counting
  thresholds:                       # crossing a threshold sends that action's callback
    - { strikes: 3, actionId: remove }

appeals:
  callback: { url: https://platform.example/hooks/appeals, headers: {} }
  body: { source: warden }          # sent as \`custom\` in the appeal decision callback

scores:                             # user scores 1-5 (all optional; these are the defaults)
  penaltyWeights: { NONE: 0, LOW: 1, MEDIUM: 3, HIGH: 9, SEVERE: 27 }
  thresholds: [0.01, 0.05, 0.10, 0.25]   # penalty points per submission: <= .01 -> 5 … > .25 -> 1

inboundTopic: { enabled: true }     # items from the topic ITEM_SUBMISSION_EVENT (off by default)

partialItems:                       # where Warden fetches whole items (typeSchemaVariant: partial)
  url: https://platform.example/warden/items
  headers: { Authorization: "Bearer \${ACME_ITEMS_TOKEN}" }
  timeoutMs: 1500
  cacheSeconds: 60

users:                              # dashboard users; passwords are set with the CLI, never here
  - { email: admin@acme.example, roles: [ADMIN] }

sso:                                # names as in the interface spec, section 5.5
  saml_enabled: false
  sso_url: https://idp.example/saml/sso
  cert: \${ACME_IDP_CERT}
`;

const INLINE_HASH = 'f8f8f0cee0f4a84f06370a22038f63f0b36e2ed596621e1d33e6b39c4e9c9b22';
const FILE_HASH = '0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef';
const CERT = '-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIU\n-----END CERTIFICATE-----';
const ENV = { ACME_HOOK_TOKEN: 'hook-secret', ACME_IDP_CERT: CERT, ACME_ITEMS_TOKEN: 'items-token' };

/** banks/known-bad.txt: a comment, a blank line, a new hash in upper case and a repeat of the inline one. */
const HASHES_FILE = `# exported 2026-01-01\n\n  ${FILE_HASH.toUpperCase()}  \r\n${INLINE_HASH}\n`;

function options(overrides: Partial<ParseOptions> = {}): ParseOptions {
  return {
    format: 'yaml',
    env: ENV,
    readHashesFile: (path) => {
      if (path === 'banks/known-bad.txt') return HASHES_FILE;
      throw new Error(`ENOENT: no such file or directory, open '${path}'`);
    },
    ...overrides,
  };
}

function parseOk(text: string, overrides: Partial<ParseOptions> = {}): OrgConfig {
  const result = parseOrgConfig(text, options(overrides));
  if (!result.ok) throw new Error(`expected a valid file, got ${JSON.stringify(result.problems, null, 2)}`);
  return result.config;
}

function problemsOf(text: string, overrides: Partial<ParseOptions> = {}): ConfigProblem[] {
  const result = parseOrgConfig(text, options(overrides));
  if (result.ok) throw new Error('expected problems, the file was accepted');
  return result.problems;
}

/** The example, edited through the YAML document API so that the rest of the file stays valid. */
function exampleWith(edit: (doc: Document) => void): string {
  const doc = parseDocument(EXAMPLE);
  edit(doc);
  return doc.toString();
}

const leaf = (field: string, extra: Record<string, unknown> = {}) => ({
  input: { field },
  comparator: 'EQUALS',
  value: true,
  ...extra,
});

const EXPECTED: OrgConfig = {
  org: {
    id: 'acme',
    name: 'Acme Social',
    settings: {
      requireDecisionReason: false,
      requirePolicyForDecisions: false,
      requireSecondFactor: false,
      auditorPersonalData: false,
      wellness: { blur: 2, greyscale: true, breakAfterItems: 0, loadMedia: 'ON_OPEN' },
    },
  },
  itemTypes: [
    {
      id: 'post',
      name: 'Post',
      kind: 'CONTENT',
      version: '1',
      fields: [
        { name: 'text', type: 'STRING', required: true, array: false, itemTypeIds: [] },
        { name: 'images', type: 'IMAGE', required: false, array: true, itemTypeIds: [] },
        { name: 'author', type: 'RELATED_ITEM', required: true, array: false, itemTypeIds: ['user'] },
        { name: 'createdAt', type: 'DATETIME', required: false, array: false, itemTypeIds: [] },
        { name: 'location', type: 'GEOHASH', required: false, array: false, itemTypeIds: [] },
        { name: 'likes', type: 'NUMBER', required: false, array: false, itemTypeIds: [] },
        { name: 'edited', type: 'BOOLEAN', required: false, array: false, itemTypeIds: [] },
      ],
      roles: { creator: 'author', createdAt: 'createdAt' },
    },
    {
      id: 'user',
      name: 'User',
      kind: 'USER',
      version: null,
      fields: [{ name: 'name', type: 'STRING', required: false, array: false, itemTypeIds: [] }],
      roles: { displayName: 'name' },
    },
  ],
  policies: [
    {
      id: 'spam',
      name: 'Spam',
      parentId: null,
      policyText: 'Unsolicited bulk content.',
      enforcementGuidelines: 'Remove links to known spam domains.',
      policyType: 'SPAM',
      penalty: 'LOW',
      userStrikeCount: 1,
      applyUserStrikeCountConfigToChildren: false,
    },
    {
      id: 'spam-links',
      name: 'Spam links',
      parentId: 'spam',
      policyText: null,
      enforcementGuidelines: null,
      policyType: null,
      penalty: 'LOW',
      userStrikeCount: 1,
      applyUserStrikeCountConfigToChildren: false,
    },
  ],
  actions: [
    {
      id: 'remove',
      name: 'Remove content',
      description: 'Hide the item from everyone.',
      kind: 'CUSTOMER_DEFINED_ACTION',
      itemTypeIds: ['post'],
      applyUserStrikes: true,
      penalty: 'MEDIUM',
      callback: {
        url: 'https://platform.example/hooks/moderation',
        headers: { Authorization: 'Bearer hook-secret' },
      },
      body: { severity: 'high' },
      parameters: [{ name: 'durationDays', type: 'NUMBER', required: false }],
    },
    {
      id: 'review',
      name: 'Send to review',
      description: null,
      kind: 'ENQUEUE_TO_MRT',
      itemTypeIds: ['post'],
      applyUserStrikes: false,
      penalty: 'NONE',
      callback: null,
      body: {},
      parameters: [],
    },
  ],
  textBanks: [
    {
      id: 'spam-domains',
      name: 'Spam domains',
      terms: ['cheap-pills.example', 'free-money.example'],
      regexes: ['\\bwin\\s+\\$\\d+'],
    },
  ],
  hashBanks: [{ id: 'known-bad', name: 'Known bad images', hashType: 'PDQ', maxDistance: 31, hashes: [INLINE_HASH, FILE_HASH] }],
  rules: [
    {
      id: 'spam-links',
      name: 'Spam links',
      status: 'LIVE',
      itemTypeIds: ['post'],
      tags: ['spam'],
      maxDailyActions: 1000,
      expiresAt: '2027-06-30T00:00:00.000Z',
      actionIds: ['remove'],
      policyIds: ['spam-links'],
      conditionSet: {
        conjunction: 'AND',
        conditions: [
          {
            input: { field: 'text' },
            signal: { type: 'TEXT_BANK', args: { bankId: 'spam-domains' } },
            comparator: 'EQUALS',
            value: true,
          },
          {
            conjunction: 'OR',
            conditions: [
              { input: { builtin: 'CREATOR' }, signal: { type: 'USER_SCORE', args: {} }, comparator: 'LTE', value: 3 },
              { input: { field: 'likes' }, signal: null, comparator: 'LT', value: 2 },
            ],
          },
        ],
      },
    },
  ],
  queues: [
    { id: 'default', name: 'Default', isDefault: true, isAppealsDefault: false, lockTimeoutSeconds: 600, order: 'FIFO', autoCloseAfterDays: null },
    { id: 'appeals', name: 'Appeals', isDefault: false, isAppealsDefault: true, lockTimeoutSeconds: 600, order: 'FIFO', autoCloseAfterDays: null },
    { id: 'spam', name: 'Spam reports', isDefault: false, isAppealsDefault: false, lockTimeoutSeconds: 600, order: 'FIFO', autoCloseAfterDays: null },
  ],
  routingRules: [
    {
      id: 'spam-reports',
      name: 'Spam reports',
      queueId: 'spam',
      itemTypeIds: ['post'],
      conditionSet: {
        conjunction: 'OR',
        conditions: [
          { input: { builtin: 'REPORTED_POLICY' }, signal: null, comparator: 'EQUALS', value: 'spam' },
          {
            input: { builtin: 'REPORT_REASON' },
            signal: { type: 'TEXT_CONTAINS', args: { terms: ['spam'] } },
            comparator: 'EQUALS',
            value: true,
          },
        ],
      },
    },
  ],
  appealRoutingRules: [],
  strikes: { windowDays: 90, thresholds: [{ strikes: 3, actionId: 'remove' }] },
  appeals: { callback: { url: 'https://platform.example/hooks/appeals', headers: {} }, body: { source: 'warden' } },
  scores: { penaltyWeights: { NONE: 0, LOW: 1, MEDIUM: 3, HIGH: 9, SEVERE: 27 }, thresholds: [0.01, 0.05, 0.1, 0.25] },
  inboundTopic: { enabled: true },
  partialItems: {
    url: 'https://platform.example/warden/items',
    headers: { Authorization: 'Bearer items-token' },
    timeoutMs: 1500,
    cacheSeconds: 60,
    maxConcurrency: 8,
    retries: 2,
  },
  transparency: { enabled: false, territorialScope: [], trustedFlaggers: [], accountType: null },
  users: [{ email: 'admin@acme.example', roles: ['ADMIN'] }],
  sso: {
    saml_enabled: false,
    sso_url: 'https://idp.example/saml/sso',
    cert: CERT,
    passwordLogin: true,
    jit: { enabled: false, defaultRoles: [] },
    roleAttribute: null,
    roleMap: {},
    wantAssertionsSigned: true,
  },
  management: { queues: 'file', sso: 'file' },
};

describe('parseOrgConfig: valid files', () => {
  it('parses the full example of org-config.md into the normalized model', () => {
    expect(parseOk(EXAMPLE)).toEqual(EXPECTED);
  });

  it('fills the defaults of the table in org-config.md', () => {
    const config = parseOk(EXAMPLE);
    const [, childPolicy] = config.policies;
    expect(childPolicy).toMatchObject({ policyText: null, enforcementGuidelines: null, policyType: null });
    expect(childPolicy?.applyUserStrikeCountConfigToChildren).toBe(false);
    expect(config.actions[1]).toMatchObject({ description: null, penalty: 'NONE', applyUserStrikes: false, callback: null });
    expect(config.actions[1]?.parameters).toEqual([]);
    expect(config.queues.map((queue) => queue.lockTimeoutSeconds)).toEqual([600, 600, 600]);
    expect(config.itemTypes[1]?.version).toBeNull();
    expect(config.itemTypes[1]?.fields[0]).toEqual({ name: 'name', type: 'STRING', required: false, array: false, itemTypeIds: [] });
    expect(config.rules[0]?.conditionSet.conditions[1]).toMatchObject({ conditions: [{ signal: { args: {} } }, { signal: null }] });
  });

  it('defaults every optional section of a file that declares only the organization', () => {
    const config = parseOk('org: { id: tiny, name: Tiny }\n');
    expect(config).toEqual({
      org: {
        id: 'tiny',
        name: 'Tiny',
        settings: {
          requireDecisionReason: false,
          requirePolicyForDecisions: false,
          requireSecondFactor: false,
          auditorPersonalData: false,
          wellness: { blur: 2, greyscale: true, breakAfterItems: 0, loadMedia: 'ON_OPEN' },
        },
      },
      itemTypes: [],
      policies: [],
      actions: [],
      textBanks: [],
      hashBanks: [],
      rules: [],
      queues: [],
      routingRules: [],
      appealRoutingRules: [],
      strikes: { windowDays: null, thresholds: [] },
      appeals: { callback: null, body: {} },
      scores: { penaltyWeights: { NONE: 0, LOW: 1, MEDIUM: 3, HIGH: 9, SEVERE: 27 }, thresholds: [0.01, 0.05, 0.1, 0.25] },
      inboundTopic: { enabled: false },
      partialItems: null,
      transparency: { enabled: false, territorialScope: [], trustedFlaggers: [], accountType: null },
      users: [],
      sso: {
        saml_enabled: false,
        sso_url: null,
        cert: null,
        passwordLogin: true,
        jit: { enabled: false, defaultRoles: [] },
        roleAttribute: null,
        roleMap: {},
        wantAssertionsSigned: true,
      },
      management: { queues: 'file', sso: 'file' },
    });
  });

  it('defaults rule status, banks and nullable rule fields', () => {
    const config = parseOk(
      exampleWith((doc) => {
        doc.deleteIn(['rules', 0, 'status']);
        doc.deleteIn(['rules', 0, 'maxDailyActions']);
        doc.deleteIn(['rules', 0, 'expiresAt']);
        doc.deleteIn(['hashBanks', 0, 'maxDistance']);
        doc.addIn(['hashBanks'], { id: 'md5', name: 'MD5 bank', hashType: 'MD5', hashes: ['D41D8CD98F00B204E9800998ECF8427E'] });
      }),
    );
    expect(config.rules[0]).toMatchObject({ status: 'DRAFT', maxDailyActions: null, expiresAt: null });
    expect(config.hashBanks[0]?.maxDistance).toBe(31);
    expect(config.hashBanks[1]).toEqual({
      id: 'md5',
      name: 'MD5 bank',
      hashType: 'MD5',
      maxDistance: null,
      hashes: ['d41d8cd98f00b204e9800998ecf8427e'],
    });
  });

  it('accepts the same configuration written as JSON', () => {
    const json = JSON.stringify(parseDocument(EXAMPLE).toJS(), null, 2);
    expect(parseOk(json, { format: 'json' })).toEqual(EXPECTED);
  });

  it('substitutes embedded and whole-string environment variables', () => {
    const config = parseOk(
      exampleWith((doc) => doc.setIn(['appeals', 'callback', 'url'], '${APPEALS_URL}/hooks/${APPEALS_PATH}')),
      { env: { ...ENV, APPEALS_URL: 'https://appeals.example', APPEALS_PATH: 'v2' } },
    );
    expect(config.appeals.callback?.url).toBe('https://appeals.example/hooks/v2');
    expect(config.sso.cert).toBe(CERT);
  });

  it('normalizes expiresAt with an offset to UTC', () => {
    const config = parseOk(exampleWith((doc) => doc.setIn(['rules', 0, 'expiresAt'], '2027-06-30T02:00:00+02:00')));
    expect(config.rules[0]?.expiresAt).toBe('2027-06-30T00:00:00.000Z');
  });

  it('lets IS_NOT_PROVIDED and IS_UNAVAILABLE leaves omit the value', () => {
    const config = parseOk(
      exampleWith((doc) => {
        doc.setIn(['rules', 0, 'conditionSet', 'conditions', 1, 'conditions', 1], { input: { field: 'likes' }, comparator: 'IS_NOT_PROVIDED' });
      }),
    );
    const nested = config.rules[0]?.conditionSet.conditions[1];
    expect(nested).toMatchObject({ conditions: [{}, { input: { field: 'likes' }, signal: null, comparator: 'IS_NOT_PROVIDED' }] });
  });
});

describe('parseOrgConfig: problems', () => {
  it('reports an unknown action in a rule', () => {
    const problems = problemsOf(exampleWith((doc) => doc.setIn(['rules', 0, 'actionIds', 0], 'ban-forever')));
    expect(problems).toEqual([{ path: 'rules[0].actionIds[0]', message: 'unknown action "ban-forever"' }]);
  });

  it("refuses a queue's lock timeout over a day and an expiry over a hundred years (a lock's expiry and the sweep's cutoff must be dates)", () => {
    const withQueue = (field: string, value: number) => exampleWith((doc) => doc.setIn(['queues', 0, field], value));
    expect(problemsOf(withQueue('lockTimeoutSeconds', 9e15))).toEqual([{ path: 'queues[0].lockTimeoutSeconds', message: 'must be at most 86400' }]);
    expect(problemsOf(withQueue('autoCloseAfterDays', 1e9))).toEqual([{ path: 'queues[0].autoCloseAfterDays', message: 'must be at most 36500' }]);
    expect(parseOk(withQueue('lockTimeoutSeconds', 86_400)).queues[0]?.lockTimeoutSeconds).toBe(86_400);
    expect(parseOk(withQueue('autoCloseAfterDays', 36_500)).queues[0]?.autoCloseAfterDays).toBe(36_500);
  });

  it('accepts the built-in actions in a rule', () => {
    const text = exampleWith((doc) => doc.setIn(['rules', 0, 'actionIds'], ['enqueue-to-mrt', 'enqueue-to-child-safety']));
    expect(parseOk(text).rules[0]?.actionIds).toEqual(['enqueue-to-mrt', 'enqueue-to-child-safety']);
  });

  it('refuses ids that could not be a customer id, or that hide characters: control, invisible or direction-changing, over 256 characters', () => {
    const withQueueId = (id: string) => exampleWith((doc) => doc.setIn(['queues', 0, 'id'], id));
    const problemOf = (id: string) => problemsOf(withQueueId(id)).find((p) => p.path === 'queues[0].id')?.message;
    expect(problemOf('spam\u0000')).toBe('must be an id: expected no control characters');
    expect(problemOf('spam\u202e')).toBe('must be an id: expected no invisible or direction-changing characters (such as U+200B or U+202E)');
    expect(problemOf('sp\u200bam')).toBe('must be an id: expected no invisible or direction-changing characters (such as U+200B or U+202E)');
    expect(problemOf('spam\u00ad')).toBe('must be an id: expected no invisible or direction-changing characters (such as U+200B or U+202E)');
    expect(problemOf('q'.repeat(257))).toBe('must be an id: expected at most 256 characters, got 257');
    // The joiners are parts of words and emoji: a Persian id (with U+200C) and 👩‍💻 (with U+200D) are ids.
    for (const id of ['\u0645\u06cc\u200c\u062e\u0648\u0627\u0645', '\u{1F469}\u200d\u{1F4BB}']) expect(parseOk(withQueueId(id)).queues[0]?.id).toBe(id);
    expect(problemOf('spam queue')).toBe('must be a non-empty string without whitespace');
    expect(problemOf('')).toBe('must be an id: expected a non-empty string');
    const longest = 'q'.repeat(256);
    // The example's routing rule sends to its third queue, spam: it follows it to the new id.
    const text = exampleWith((doc) => doc.setIn(['queues', 2, 'id'], longest)).replaceAll('queueId: spam', `queueId: ${longest}`);
    const config = parseOk(text);
    expect(config.queues[2]?.id).toBe(longest);
    expect(config.routingRules[0]?.queueId).toBe(longest);
  });

  it("refuses an item type id with ':', which would make two users one person where Warden names a user's data (<typeId>:<id>)", () => {
    const problems = problemsOf(exampleWith((doc) => doc.setIn(['itemTypes', 0, 'id'], 'user:eu')));
    expect(problems).toContainEqual({
      path: 'itemTypes[0].id',
      message: "must not contain ':' (it separates an item type from an id where Warden names a user's data)",
    });
    // Other ids may hold one (a queue's, an action's): they never name a person.
    expect(parseOk(exampleWith((doc) => doc.setIn(['queues', 0, 'id'], 'trust:safety'))).queues[0]?.id).toBe('trust:safety');
  });

  it('reports an unknown policy parent', () => {
    const problems = problemsOf(exampleWith((doc) => doc.setIn(['policies', 1, 'parentId'], 'scam')));
    expect(problems).toEqual([{ path: 'policies[1].parentId', message: 'unknown policy "scam"' }]);
  });

  it('reports a cycle in the policy tree once, at a parentId of the cycle', () => {
    const problems = problemsOf(exampleWith((doc) => doc.setIn(['policies', 0, 'parentId'], 'spam-links')));
    expect(problems).toEqual([{ path: 'policies[0].parentId', message: 'policy parents form a cycle: spam → spam-links → spam' }]);
  });

  it('reports an action assigned to an unknown item type', () => {
    const problems = problemsOf(exampleWith((doc) => doc.setIn(['actions', 1, 'itemTypeIds', 0], 'comment')));
    expect(problems).toEqual([{ path: 'actions[1].itemTypeIds[0]', message: 'unknown item type "comment"' }]);
  });

  it('reports a regex that re2js cannot compile in a rule signal', () => {
    const problems = problemsOf(
      exampleWith((doc) =>
        doc.setIn(['rules', 0, 'conditionSet', 'conditions', 0, 'signal'], {
          type: 'TEXT_MATCHES_REGEX',
          args: { pattern: 'win (\\$\\d+' },
        }),
      ),
    );
    expect(problems).toHaveLength(1);
    expect(problems[0]?.path).toBe('rules[0].conditionSet.conditions[0].signal.args.pattern');
    expect(problems[0]?.message).toMatch(/^invalid regular expression: .*missing closing \)/);
  });

  it('refuses a text bank of more than 100,000 terms (MAX_TERMS, as a TEXT_CONTAINS condition), pointing at the list', () => {
    const many = Array.from({ length: 100_001 }, (_, i) => `t${i}`);
    const bank = problemsOf(exampleWith((doc) => doc.setIn(['textBanks', 0, 'terms'], many)));
    expect(bank.map((p) => [p.path, p.message])).toEqual([['textBanks[0].terms', 'must have at most 100000 items']]);
  });

  it('reports a regex that re2js cannot compile in a text bank', () => {
    const problems = problemsOf(exampleWith((doc) => doc.addIn(['textBanks', 0, 'regexes'], '(?<=free)money')));
    expect(problems).toHaveLength(1);
    expect(problems[0]?.path).toBe('textBanks[0].regexes[1]');
    expect(problems[0]?.message).toMatch(/^invalid regular expression: error parsing regexp/);
  });

  it('reports an organization name over 200 characters at org.name, as the organization refuses it', () => {
    const problems = problemsOf(exampleWith((doc) => doc.setIn(['org', 'name'], 'N'.repeat(201))));
    expect(problems).toEqual([{ path: 'org.name', message: 'must have at most 200 characters' }]);
  });

  it('reports a malformed inline hash at its index', () => {
    const problems = problemsOf(exampleWith((doc) => doc.addIn(['hashBanks', 0, 'hashes'], 'f8f8f0ce')));
    expect(problems).toEqual([{ path: 'hashBanks[0].hashes[1]', message: '"f8f8f0ce" is not a 64-character hex PDQ hash' }]);
  });

  it('reports a malformed line of the hashes file with its line number', () => {
    const readHashesFile = () => `# bank\n${FILE_HASH}\nnot-a-hash\n\n${INLINE_HASH}\n`;
    const problems = problemsOf(EXAMPLE, { readHashesFile });
    expect(problems).toEqual([{ path: 'hashBanks[0].hashesFile', message: 'line 3: not a 64-character hex PDQ hash (10 characters)' }]);
  });

  it('never quotes a line of the hashes file: the path may name a secret, and problems reach logs', () => {
    const secretKey = '34S4oqQzU2QyhpcslOiuJsnP82DApXvaQNO5+rbH/LU=';
    const problems = problemsOf(EXAMPLE, { readHashesFile: () => `${secretKey}\n${'g'.repeat(64)}\n` });
    expect(problems).toEqual([
      { path: 'hashBanks[0].hashesFile', message: 'line 1: not a 64-character hex PDQ hash (44 characters)' },
      { path: 'hashBanks[0].hashesFile', message: 'line 2: not a 64-character hex PDQ hash (not hexadecimal)' },
    ]);
    expect(JSON.stringify(problems)).not.toContain(secretKey.slice(0, 8));
  });

  it('reports at most 20 malformed lines of a hashes file, then how many more', () => {
    const readHashesFile = () => Array.from({ length: 25 }, (_, i) => `bad${i}`).join('\n');
    const problems = problemsOf(EXAMPLE, { readHashesFile });
    expect(problems).toHaveLength(21);
    expect(problems.every((problem) => problem.path === 'hashBanks[0].hashesFile')).toBe(true);
    expect(problems[19]?.message).toBe('line 20: not a 64-character hex PDQ hash (5 characters)');
    expect(problems[20]?.message).toBe('… and 5 more malformed lines');
    // That line stands for five problems, not one: the count says 25 (apply's summary line).
    expect(problems[20]?.unlisted).toBe(5);
    expect(problemCount(problems)).toBe(25);
  });

  it('reports a missing hashes file', () => {
    const problems = problemsOf(exampleWith((doc) => doc.setIn(['hashBanks', 0, 'hashesFile'], 'banks/gone.txt')));
    expect(problems).toHaveLength(1);
    expect(problems[0]?.path).toBe('hashBanks[0].hashesFile');
    expect(problems[0]?.message).toMatch(/^cannot read hashes file "banks\/gone.txt": ENOENT/);
  });

  it('reports a wrong comparator inside a nested set, listing the allowed values', () => {
    const problems = problemsOf(exampleWith((doc) => doc.setIn(['rules', 0, 'conditionSet', 'conditions', 1, 'conditions', 0, 'comparator'], 'BELOW')));
    expect(problems).toEqual([
      {
        path: 'rules[0].conditionSet.conditions[1].conditions[0].comparator',
        message: 'must be one of EQUALS, NOT_EQUAL_TO, LT, LTE, GT, GTE, CONTAINS, IS_UNAVAILABLE, IS_NOT_PROVIDED (got "BELOW")',
      },
    ]);
  });

  it('reports a wrong comparator on a leaf of the top-level set', () => {
    const problems = problemsOf(
      exampleWith((doc) => {
        doc.setIn(['rules', 0, 'conditionSet', 'conditions', 1], leaf('text', { comparator: 'MATCHES' }));
      }),
    );
    expect(problems.map((problem) => problem.path)).toEqual(['rules[0].conditionSet.conditions[1].comparator']);
  });

  it('reports a missing required field', () => {
    const problems = problemsOf(exampleWith((doc) => doc.deleteIn(['rules', 0, 'name'])));
    expect(problems).toEqual([{ path: 'rules[0].name', message: 'is required' }]);
  });

  describe('sso with saml_enabled: true', () => {
    const IDP_CERT = readFileSync(new URL('../../../../examples/idp-example.pem', import.meta.url), 'utf8');
    const withSaml = (cert: string) =>
      problemsOf(
        exampleWith((doc) => doc.setIn(['sso', 'saml_enabled'], true)),
        { env: { ...ENV, ACME_IDP_CERT: cert } },
      );

    it('refuses an empty certificate (a ${NAME} set to nothing), at sso.cert', () => {
      expect(withSaml('')).toEqual([{ path: 'sso.cert', message: "is empty; saml_enabled is true, so the IdP's signing certificate (PEM) is required" }]);
      expect(withSaml('  \n')).toHaveLength(1);
    });

    it('refuses text that is not a PEM certificate, and a PEM block that does not decode', () => {
      expect(withSaml('MIIDFzCCAf+gAwIBAgIU')).toEqual([
        { path: 'sso.cert', message: 'is not a PEM certificate (expected -----BEGIN CERTIFICATE----- … -----END CERTIFICATE-----)' },
      ]);
      expect(withSaml(CERT)).toEqual([{ path: 'sso.cert', message: 'is not a valid X.509 certificate (the PEM block does not decode)' }]);
    });

    it('accepts a real certificate (the example IdP certificate of the README)', () => {
      const config = parseOk(
        exampleWith((doc) => doc.setIn(['sso', 'saml_enabled'], true)),
        { env: { ...ENV, ACME_IDP_CERT: IDP_CERT } },
      );
      expect(config.sso).toMatchObject({ saml_enabled: true, sso_url: 'https://idp.example/saml/sso', cert: IDP_CERT });
    });
  });

  describe('sso: password login, JIT provisioning and role mapping', () => {
    const IDP_CERT = readFileSync(new URL('../../../../examples/idp-example.pem', import.meta.url), 'utf8');
    const withSso = (edit: (doc: Document) => void) =>
      exampleWith((doc) => {
        doc.setIn(['sso', 'saml_enabled'], true);
        edit(doc);
      });
    const env = { env: { ...ENV, ACME_IDP_CERT: IDP_CERT } };

    it('reads the additions of org-config.md', () => {
      const config = parseOk(
        withSso((doc) => {
          doc.setIn(['sso', 'passwordLogin'], false);
          doc.setIn(['sso', 'jit'], { enabled: true, defaultRoles: ['MODERATOR'] });
          doc.setIn(['sso', 'roleAttribute'], 'groups');
          doc.setIn(['sso', 'roleMap'], { 'trust-safety-admins': ['ADMIN'], moderators: ['MODERATOR', 'ANALYST'] });
        }),
        env,
      );
      expect(config.sso).toEqual({
        saml_enabled: true,
        sso_url: 'https://idp.example/saml/sso',
        cert: IDP_CERT,
        passwordLogin: false,
        jit: { enabled: true, defaultRoles: ['MODERATOR'] },
        roleAttribute: 'groups',
        roleMap: { 'trust-safety-admins': ['ADMIN'], moderators: ['MODERATOR', 'ANALYST'] },
        wantAssertionsSigned: true,
      });
    });

    it('points at an unknown role in roleMap and in jit.defaultRoles', () => {
      const problems = problemsOf(
        withSso((doc) => {
          doc.setIn(['sso', 'jit'], { enabled: true, defaultRoles: ['OWNER'] });
          doc.setIn(['sso', 'roleAttribute'], 'groups');
          doc.setIn(['sso', 'roleMap'], { admins: ['ADMIN', 'SUPERUSER'] });
        }),
        env,
      );
      expect(problems.map((p) => p.path)).toEqual(['sso.jit.defaultRoles[0]', 'sso.roleMap.admins[1]']);
    });

    it('refuses a roleMap without roleAttribute, and password login off without SAML', () => {
      expect(
        problemsOf(
          withSso((doc) => doc.setIn(['sso', 'roleMap'], { admins: ['ADMIN'] })),
          env,
        ),
      ).toEqual([{ path: 'sso.roleAttribute', message: 'is required when roleMap is set (the assertion attribute that holds the groups)' }]);
      expect(problemsOf(exampleWith((doc) => doc.setIn(['sso', 'passwordLogin'], false)))).toEqual([
        { path: 'sso.passwordLogin', message: 'can be false only when saml_enabled is true' },
      ]);
    });

    it('refuses JIT that could give no role (no defaultRoles, no roleAttribute)', () => {
      expect(
        problemsOf(
          withSso((doc) => doc.setIn(['sso', 'jit'], { enabled: true })),
          env,
        ),
      ).toEqual([{ path: 'sso.jit.defaultRoles', message: 'must name at least one role when jit is enabled without roleAttribute' }]);
    });

    it('refuses an unknown key in jit', () => {
      const problems = problemsOf(
        withSso((doc) => doc.setIn(['sso', 'jit'], { enabled: false, roles: ['ADMIN'] })),
        env,
      );
      expect(problems.map((p) => p.path)).toEqual(['sso.jit.roles']);
    });
  });

  it('reports an unset environment variable at the value that references it', () => {
    const problems = problemsOf(EXAMPLE, { env: { ACME_IDP_CERT: CERT, ACME_ITEMS_TOKEN: 'items-token' } });
    expect(problems).toEqual([{ path: 'actions[0].callback.headers.Authorization', message: 'environment variable ACME_HOOK_TOKEN is not set' }]);
  });

  it('reports only the unset variable, not the invalid URL it leaves behind', () => {
    const problems = problemsOf(exampleWith((doc) => doc.setIn(['appeals', 'callback', 'url'], '${APPEALS_URL}')));
    expect(problems).toEqual([{ path: 'appeals.callback.url', message: 'environment variable APPEALS_URL is not set' }]);
  });

  it("reports callback headers the HTTP client could not send at the header's path, the value checked after substitution and never echoed", () => {
    const VALUE_PROBLEM = 'must be printable ASCII, spaces and tabs (an HTTP header value; encode other text, e.g. as percent-encoded UTF-8)';
    const problems = problemsOf(
      exampleWith((doc) => {
        doc.setIn(['actions', 0, 'callback', 'headers'], {
          Authorization: 'Bearer ${ACME_HOOK_TOKEN}',
          'X-Currency': '€ 5',
          'X-Latin': 'Grüße',
          'X-Null': 'a\u0000b',
          'Bad Name': 'x',
          'Content-Type': 'text/plain',
          'Transfer-Encoding': 'chunked',
          'X-Fine': 'tab\tand spaces ~!',
          'x-fine': 'again',
          'X-Number': 123456789,
        });
        doc.setIn(['appeals', 'callback', 'headers'], { 'Service-Delivery-Id': 'forged' });
      }),
      { env: { ...ENV, ACME_HOOK_TOKEN: 'line\r\nX-Injected: 1' } },
    );
    expect(problems).toEqual([
      { path: 'actions[0].callback.headers.Authorization', message: VALUE_PROBLEM },
      { path: 'actions[0].callback.headers["X-Currency"]', message: VALUE_PROBLEM },
      { path: 'actions[0].callback.headers["X-Latin"]', message: VALUE_PROBLEM },
      { path: 'actions[0].callback.headers["X-Null"]', message: VALUE_PROBLEM },
      { path: 'actions[0].callback.headers["Bad Name"]', message: "is not an HTTP header name (letters, digits and !#$%&'*+.^_`|~-)" },
      { path: 'actions[0].callback.headers["Content-Type"]', message: 'is set by Warden itself' },
      { path: 'actions[0].callback.headers["Transfer-Encoding"]', message: 'is set by Warden itself' },
      { path: 'actions[0].callback.headers["x-fine"]', message: 'repeats header "X-Fine" (header names ignore case)' },
      { path: 'actions[0].callback.headers["X-Number"]', message: 'must be a string (quote it; the value is not shown, it may hold a secret)' },
      { path: 'appeals.callback.headers["Service-Delivery-Id"]', message: 'is set by Warden itself' },
    ]);
    expect(JSON.stringify(problems)).not.toContain('Injected');
    expect(JSON.stringify(problems)).not.toContain('123456789');
  });

  it('accepts user info in a callback URL, refusing it next to an Authorization header or when Basic could not carry it, never quoting it', () => {
    const withCallback = (url: string, headers: Record<string, string> = {}) =>
      exampleWith((doc) => {
        doc.setIn(['actions', 0, 'callback'], { url, headers });
        doc.setIn(['appeals', 'callback'], { url, headers });
      });
    const fine = parseOk(withCallback('https://alice:s3cret@platform.example/hooks', { 'X-Tenant': 'acme' }), { env: ENV });
    expect(fine.actions[0]!.callback?.url).toBe('https://alice:s3cret@platform.example/hooks');
    const problemsWith = (url: string, headers?: Record<string, string>) => problemsOf(withCallback(url, headers), { env: ENV });
    const both = problemsWith('https://alice:s3cret@platform.example/hooks', { authorization: 'Bearer t' });
    const BOTH = 'has user info, sent as Authorization: Basic, and headers set Authorization too: keep one (docs/callbacks.md, "Credentials in the URL")';
    expect(both).toEqual([
      { path: 'actions[0].callback.url', message: BOTH },
      { path: 'appeals.callback.url', message: BOTH },
    ]);
    expect(problemsWith('https://al%3Aice:s3cret@platform.example/hooks')[0]).toEqual({
      path: 'actions[0].callback.url',
      message: 'has a user name holding a colon (%3A), which Authorization: Basic cannot carry',
    });
    expect(problemsWith('https://alice:s3cr%ZZet@platform.example/hooks')[0]).toEqual({
      path: 'actions[0].callback.url',
      message: 'has user info that is not valid percent-encoding (the user name and password are sent as Authorization: Basic, decoded)',
    });
    expect(JSON.stringify(both)).not.toContain('s3cret');
  });

  it('reports a duplicate id at the duplicate', () => {
    const problems = problemsOf(exampleWith((doc) => doc.addIn(['queues'], { id: 'default', name: 'Another default' })));
    expect(problems).toEqual([{ path: 'queues[3].id', message: 'duplicate id "default" (first declared at queues[0])' }]);
  });

  it('reads org.settings.wellness, each field defaulted on its own', () => {
    const settingsOf = (wellness: string) => parseOk(`org: { id: tiny, name: Tiny, settings: { wellness: ${wellness} } }\n`).org.settings.wellness;
    expect(settingsOf('{}')).toEqual({ blur: 2, greyscale: true, breakAfterItems: 0, loadMedia: 'ON_OPEN' });
    expect(settingsOf('{ blur: 0 }')).toEqual({ blur: 0, greyscale: true, breakAfterItems: 0, loadMedia: 'ON_OPEN' });
    expect(settingsOf('{ blur: 3, greyscale: false, breakAfterItems: 25, loadMedia: ON_REVEAL }')).toEqual({
      blur: 3,
      greyscale: false,
      breakAfterItems: 25,
      loadMedia: 'ON_REVEAL',
    });
  });

  it('reports a bad org.settings.wellness field at its path', () => {
    const problemsWith = (wellness: unknown) => problemsOf(exampleWith((doc) => doc.setIn(['org', 'settings', 'wellness'], wellness)));
    expect(problemsWith({ blur: 4 })).toEqual([{ path: 'org.settings.wellness.blur', message: 'must be one of 0, 1, 2, 3 (got 4)' }]);
    expect(problemsWith({ blur: '2' })).toEqual([{ path: 'org.settings.wellness.blur', message: 'must be one of 0, 1, 2, 3 (got "2")' }]);
    expect(problemsWith({ greyscale: 'yes' })).toEqual([{ path: 'org.settings.wellness.greyscale', message: 'must be true or false (got "yes")' }]);
    expect(problemsWith({ breakAfterItems: -1 })).toEqual([{ path: 'org.settings.wellness.breakAfterItems', message: 'must be at least 0' }]);
    expect(problemsWith({ breakAfterItems: 2.5 })).toEqual([{ path: 'org.settings.wellness.breakAfterItems', message: 'must be an integer (got 2.5)' }]);
    expect(problemsWith({ breakAfter: 5 })).toEqual([{ path: 'org.settings.wellness.breakAfter', message: 'unknown key' }]);
    expect(problemsWith({ loadMedia: 'LATER' })).toEqual([
      { path: 'org.settings.wellness.loadMedia', message: 'must be one of ON_OPEN, ON_REVEAL (got "LATER")' },
    ]);
    expect(problemsWith([2])).toEqual([{ path: 'org.settings.wellness', message: 'must be a mapping (got a list)' }]);
  });

  it('reports an unknown top-level section', () => {
    const problems = problemsOf(exampleWith((doc) => doc.set('webhooks', [{ url: 'https://x.example' }])));
    expect(problems).toEqual([{ path: 'webhooks', message: 'unknown section "webhooks"' }]);
  });

  it('reports a YAML syntax error as one problem for the whole file, with its line', () => {
    const problems = problemsOf('org:\n  id: acme\n  name: [Acme\nrules: []\n');
    expect(problems).toHaveLength(1);
    expect(problems[0]?.path).toBe('');
    expect(problems[0]?.message).toMatch(/^invalid YAML: .*line \d+/);
  });

  it('refuses a YAML tag it cannot resolve and an unknown directive rather than reading a plain string', () => {
    expect(problemsOf('org: { id: acme, name: !secret Acme }\n')).toEqual([
      { path: '', message: 'invalid YAML: Unresolved tag: !secret at line 1, column 24' },
    ]);
    expect(problemsOf('org: { id: acme, name: Acme }\nrules: !!int many\n')).toEqual([
      { path: '', message: 'invalid YAML: Unresolved tag: tag:yaml.org,2002:int at line 2, column 8' },
    ]);
    expect(problemsOf('%LOCAL yes\n---\norg: { id: acme, name: Acme }\n')).toEqual([
      { path: '', message: 'invalid YAML: Unknown directive %LOCAL at line 1, column 1' },
    ]);
  });

  it('reports a JSON syntax error as one problem for the whole file, with its line', () => {
    const problems = problemsOf('{\n  "org": { "id": "acme", }\n}', { format: 'json' });
    expect(problems).toHaveLength(1);
    expect(problems[0]?.path).toBe('');
    expect(problems[0]?.message).toMatch(/^invalid JSON: .*line 2/);
  });

  it('refuses a JSON file that writes a key twice in one object, as YAML does, with its line', () => {
    const json = JSON.stringify(parseDocument(EXAMPLE).toJS(), null, 2).replace('{\n  "org": {', '{\n  "org": { "id": "evil", "name": "Evil" },\n  "org": {');
    expect(problemsOf(json, { format: 'json' })).toEqual([{ path: '', message: 'invalid JSON: the key "org" appears twice in one object (line 3)' }]);
    expect(problemsOf('{"org": {"id": "acme", "name": "A", "id": "evil"}}', { format: 'json' })).toEqual([
      { path: '', message: 'invalid JSON: the key "id" appears twice in one object (line 1)' },
    ]);
  });

  it('refuses a file nested deeper than 64 levels as a whole, without overflowing the stack, in either format', () => {
    const deep = (levels: number) => `${'['.repeat(levels)}${']'.repeat(levels)}`;
    expect(problemsOf(`{"org": {"id": "acme", "name": "A"}, "custom": ${deep(100_000)}}`, { format: 'json' })).toEqual([
      { path: '', message: 'invalid JSON: nested more than 64 levels deep' },
    ]);
    expect(problemsOf(`org: { id: acme, name: A }\ncustom: ${deep(70)}\n`)).toEqual([{ path: '', message: 'invalid YAML: nested more than 64 levels deep' }]);
  });

  it('refuses a YAML file whose aliases add more than 100,000 values to what it writes, counting the values they expand to', () => {
    // One anchored list of 2,001 values (the list and its 2,000 numbers), then `aliases` aliases of it.
    const file = (aliases: number) =>
      `org: { id: acme, name: A }\nbase: &b [${Array(2_000).fill('1').join(', ')}]\n${Array.from({ length: aliases }, (_, i) => `c${i}: *b`).join('\n')}\n`;
    // 45 aliases add 90,045 values: read, and then refused for what the sections hold, not for their size.
    const within = problemsOf(file(45));
    expect(within.length).toBeGreaterThan(0);
    expect(within.some((problem) => /aliases/.test(problem.message))).toBe(false);
    // 55 add 110,055: refused as a whole, naming the count.
    const [problem, ...others] = problemsOf(file(55));
    expect(others).toEqual([]);
    const counts =
      /^invalid YAML: its aliases expand it to more than (\d+) values \((\d+) written, at most 100000 more from aliases\); write the repeated parts out/.exec(
        problem?.message ?? '',
      );
    expect(counts, problem?.message).not.toBeNull();
    // Written: the root, `org` and its four, `base` and its list of 2,001, and each alias with its key.
    expect(Number(counts![2])).toBe(1 + 2 + 4 + 2 + 2_000 + 2 * 55);
    expect(Number(counts![1])).toBe(Number(counts![2]) + MAX_ALIAS_EXPANSION);
    // A JSON file has no aliases: a large one is not held to the budget.
    const wide = JSON.stringify({ org: { id: 'acme', name: 'A' }, custom: Array(120_000).fill(1) });
    expect(problemsOf(wide, { format: 'json' }).some((p) => /aliases/.test(p.message))).toBe(false);
  });

  it("reports a field input that names no field of the rule's item types", () => {
    const problems = problemsOf(exampleWith((doc) => doc.setIn(['rules', 0, 'conditionSet', 'conditions', 1, 'conditions', 1, 'input', 'field'], 'shares')));
    expect(problems).toEqual([{ path: 'rules[0].conditionSet.conditions[1].conditions[1].input.field', message: 'no field "shares" in item type post' }]);
  });

  it("reports a field input that names no field of a routing rule's item types", () => {
    const problems = problemsOf(exampleWith((doc) => doc.setIn(['routingRules', 0, 'conditionSet', 'conditions', 0], leaf('title'))));
    expect(problems.map((problem) => problem.path)).toEqual(['routingRules[0].conditionSet.conditions[0].input.field']);
  });

  it('reports a CUSTOMER_DEFINED_ACTION without a callback, and a callback on another kind', () => {
    const problems = problemsOf(
      exampleWith((doc) => {
        doc.deleteIn(['actions', 0, 'callback']);
        doc.setIn(['actions', 1, 'callback'], { url: 'https://platform.example/hooks/review' });
      }),
    );
    expect(problems.map((problem) => problem.path)).toEqual(['actions[0].callback', 'actions[1].callback']);
    expect(problems[0]?.message).toMatch(/is required for a CUSTOMER_DEFINED_ACTION/);
    expect(problems[1]?.message).toMatch(/only allowed on a CUSTOMER_DEFINED_ACTION, not ENQUEUE_TO_MRT/);
  });

  it('reports unknown banks and invalid signal arguments', () => {
    const problems = problemsOf(
      exampleWith((doc) => {
        doc.setIn(
          ['rules', 0, 'conditionSet', 'conditions'],
          [
            leaf('text', { signal: { type: 'TEXT_BANK', args: { bankId: 'nope' } } }),
            leaf('images', { signal: { type: 'IMAGE_HASH_MATCH', args: { bankIds: ['known-bad', 'lost'] } } }),
            leaf('text', { signal: { type: 'TEXT_CONTAINS', args: { terms: [] } } }),
            leaf('text', { signal: { type: 'HTTP_SIGNAL', args: { url: 'ftp://classifier.example' } } }),
            leaf('location', { signal: { type: 'GEO_WITHIN', args: { lat: 91, lon: 0, radiusKm: 0 } } }),
            leaf('text', { signal: { type: 'SENTIMENT' } }),
            leaf('text', { signal: { type: 'HTTP_SIGNAL', args: { url: 'https://classifier.example', timeoutMs: 600_000 } } }),
            leaf('text', { signal: { type: 'HTTP_SIGNAL', args: { url: 'https://classifier.example', timeoutMs: 10 } } }),
          ],
        );
      }),
    );
    const base = 'rules[0].conditionSet.conditions';
    expect(problems).toEqual([
      { path: `${base}[0].signal.args.bankId`, message: 'unknown text bank "nope"' },
      { path: `${base}[1].signal.args.bankIds[1]`, message: 'unknown hash bank "lost"' },
      { path: `${base}[2].signal.args.terms`, message: 'must not be empty' },
      { path: `${base}[3].signal.args.url`, message: 'must be an absolute http(s) URL' },
      { path: `${base}[4].signal.args.lat`, message: 'must be at most 90' },
      { path: `${base}[4].signal.args.radiusKm`, message: 'must be greater than 0' },
      { path: `${base}[5].signal.type`, message: expect.stringMatching(/^must be one of TEXT_CONTAINS, .*HTTP_SIGNAL \(got "SENTIMENT"\)$/) },
      { path: `${base}[6].signal.args.timeoutMs`, message: 'must be at most 30000' },
      { path: `${base}[7].signal.args.timeoutMs`, message: 'must be at least 100' },
    ]);
  });

  it('reports malformed condition sets and leaves', () => {
    const problems = problemsOf(
      exampleWith((doc) => {
        doc.setIn(
          ['rules', 0, 'conditionSet', 'conditions'],
          [
            { conjunction: 'NAND', conditions: [] },
            { input: { field: 'text', builtin: 'ALL_TEXT' }, comparator: 'EQUALS', value: 1 },
            { input: { field: 'text' }, comparator: 'EQUALS' },
            { input: { builtin: 'REPORT_COUNT' }, comparator: 'GT', value: 3 },
          ],
        );
      }),
    );
    const base = 'rules[0].conditionSet.conditions';
    expect(problems).toEqual([
      { path: `${base}[0].conjunction`, message: 'must be one of AND, OR, XOR (got "NAND")' },
      { path: `${base}[0].conditions`, message: 'must not be empty' },
      { path: `${base}[1].input`, message: 'must have exactly one of field or builtin' },
      { path: `${base}[2].value`, message: 'is required with comparator EQUALS' },
      { path: `${base}[3].input.builtin`, message: 'REPORT_COUNT is only available in routing rules' },
    ]);
  });

  it('reports an ordering comparator whose value cannot be compared with what the leaf compares', () => {
    const ordered = (input: Record<string, unknown>, comparator: string, value: unknown, signal?: Record<string, unknown>) => ({
      input,
      comparator,
      value,
      ...(signal === undefined ? {} : { signal }),
    });
    const problems = problemsOf(
      exampleWith((doc) => {
        doc.setIn(
          ['rules', 0, 'conditionSet', 'conditions'],
          [
            ordered({ field: 'likes' }, 'LT', 'abc'),
            ordered({ field: 'likes' }, 'GTE', '2026-03-01'),
            ordered({ field: 'createdAt' }, 'GT', 5),
            ordered({ field: 'edited' }, 'LTE', 1),
            ordered({ field: 'text' }, 'LT', 3),
            ordered({ builtin: 'ITEM' }, 'GT', 1),
            ordered({ field: 'text' }, 'GT', 0, { type: 'TEXT_BANK', args: { bankId: 'spam-domains' } }),
            ordered({ builtin: 'CREATOR' }, 'LTE', 'three', { type: 'USER_SCORE' }),
            ordered({ builtin: 'ALL_TEXT' }, 'LT', 'soon'),
            // Accepted: each value compares with what its leaf compares.
            ordered({ field: 'likes' }, 'LT', 2.5),
            ordered({ field: 'createdAt' }, 'GTE', '2026-03-01T00:00:00+01:00'),
            ordered({ field: 'text' }, 'LT', '2026-03-01'),
            ordered({ builtin: 'CREATOR' }, 'LTE', 3, { type: 'USER_SCORE' }),
            ordered({ field: 'likes' }, 'EQUALS', 'abc'),
          ],
        );
      }),
    );
    const base = 'rules[0].conditionSet.conditions';
    expect(problems).toEqual([
      { path: `${base}[0].value`, message: 'LT on field "likes" (NUMBER) needs a number (got "abc")' },
      { path: `${base}[1].value`, message: 'GTE on field "likes" (NUMBER) needs a number (got "2026-03-01")' },
      { path: `${base}[2].value`, message: 'GT on field "createdAt" (DATETIME) needs a date or datetime (got 5)' },
      { path: `${base}[3].value`, message: 'LTE cannot order field "edited" (BOOLEAN): only numbers, dates and datetimes are ordered' },
      { path: `${base}[4].value`, message: 'LT on field "text" (STRING) needs a date or datetime (got 3)' },
      { path: `${base}[5].value`, message: 'GT cannot order ITEM: only numbers, dates and datetimes are ordered' },
      { path: `${base}[6].value`, message: 'GT cannot order signal TEXT_BANK (true or false): only numbers, dates and datetimes are ordered' },
      { path: `${base}[7].value`, message: 'LTE on signal USER_SCORE (a number) needs a number (got "three")' },
      { path: `${base}[8].value`, message: 'LT on ALL_TEXT needs a date or datetime (got "soon")' },
    ]);
  });

  it('reports an ordering comparator whose value is neither a number nor a date wherever the leaf compares, and a routing rule too', () => {
    const problems = problemsOf(
      exampleWith((doc) => {
        doc.setIn(['routingRules', 0, 'conditionSet', 'conditions', 0], { input: { builtin: 'REPORT_COUNT' }, comparator: 'GT', value: 'many' });
        doc.setIn(['routingRules', 0, 'itemTypeIds'], ['nope']);
        doc.setIn(['rules', 0, 'conditionSet', 'conditions', 0], { input: { field: 'likes' }, comparator: 'LT', value: { n: 1 } });
        doc.setIn(['rules', 0, 'itemTypeIds'], ['nope']);
      }),
    );
    expect(problems.filter((problem) => problem.path.endsWith('.value'))).toEqual([
      { path: 'rules[0].conditionSet.conditions[0].value', message: 'LT compares numbers, dates and datetimes (got {"n":1})' },
      { path: 'routingRules[0].conditionSet.conditions[0].value', message: 'GT on REPORT_COUNT needs a number (got "many")' },
    ]);
  });

  it('reads an unquoted YAML date as the date it names for an ordering comparator', () => {
    const text = exampleWith((doc) =>
      doc.setIn(['rules', 0, 'conditionSet', 'conditions', 0], { input: { field: 'createdAt' }, comparator: 'GT', value: 'X' }),
    );
    const result = parseOrgConfig(text.replace('value: X', 'value: 2026-03-01'), options());
    expect(result.ok ? [] : result.problems).toEqual([]);
  });

  it('reports queue and routing problems', () => {
    const problems = problemsOf(
      exampleWith((doc) => {
        doc.addIn(['queues'], { id: 'child-safety', name: 'Mine', isDefault: true, isAppealsDefault: true });
        doc.setIn(['routingRules', 0, 'queueId'], 'nowhere');
        doc.addIn(['appealRoutingRules'], {
          id: 'to-child-safety',
          name: 'Child safety appeals',
          queueId: 'child-safety',
          conditionSet: { conjunction: 'AND', conditions: [{ input: { builtin: 'REPORT_COUNT' }, comparator: 'GT', value: 1 }] },
        });
      }),
    );
    expect(problems).toEqual([
      { path: 'queues[3].id', message: '"child-safety" is reserved for the built-in child-safety queue' },
      { path: 'queues[3].isDefault', message: 'only one queue may be the default (queues[0] already is)' },
      { path: 'queues[3].isAppealsDefault', message: 'only one queue may be the appeals default (queues[1] already is)' },
      { path: 'routingRules[0].queueId', message: 'unknown queue "nowhere"' },
    ]);
  });

  it('reports hash bank, org, date and type problems', () => {
    const problems = problemsOf(
      exampleWith((doc) => {
        doc.setIn(['org', 'id'], 'Acme Inc');
        doc.setIn(['itemTypes', 0, 'kind'], 'POST');
        doc.setIn(['policies', 0, 'userStrikeCount'], 'one');
        doc.setIn(['hashBanks', 0, 'maxDistance'], 300);
        doc.addIn(['hashBanks'], { id: 'sha', name: 'SHA', hashType: 'SHA256', maxDistance: 4 });
        doc.setIn(['rules', 0, 'expiresAt'], '2027-06-30');
        doc.setIn(['rules', 0, 'maxDailyActions'], 0);
        doc.setIn(['users', 0, 'roles', 0], 'ROOT');
      }),
    );
    expect(problems).toEqual([
      { path: 'org.id', message: expect.stringMatching(/^must match/) },
      { path: 'itemTypes[0].kind', message: 'must be one of CONTENT, USER, THREAD (got "POST")' },
      { path: 'policies[0].userStrikeCount', message: 'must be a number (got "one")' },
      { path: 'hashBanks[0].maxDistance', message: 'must be at most 256' },
      { path: 'hashBanks[1].maxDistance', message: 'applies to PDQ banks only, not SHA256' },
      { path: 'rules[0].maxDailyActions', message: 'must be greater than 0' },
      { path: 'rules[0].expiresAt', message: expect.stringMatching(/^must be an ISO 8601 datetime with a time part/) },
      { path: 'users[0].roles[0]', message: expect.stringMatching(/^must be one of ADMIN, .* \(got "ROOT"\)$/) },
    ]);
  });

  it('reports role fields that do not exist or are not related items', () => {
    const problems = problemsOf(
      exampleWith((doc) => {
        doc.setIn(['itemTypes', 0, 'roles', 'creator'], 'text');
        doc.setIn(['itemTypes', 0, 'roles', 'thread'], 'parent');
        doc.setIn(['itemTypes', 0, 'fields', 2, 'itemTypeIds', 0], 'account');
      }),
    );
    expect(problems).toEqual([
      { path: 'itemTypes[0].fields[2].itemTypeIds[0]', message: 'unknown item type "account"' },
      { path: 'itemTypes[0].roles.creator', message: 'role creator must name a RELATED_ITEM field ("text" is STRING)' },
      { path: 'itemTypes[0].roles.thread', message: 'item type "post" has no field "parent"' },
    ]);
  });

  it("reports a signal's argument under a name the signal does not take, naming those it takes", () => {
    const problems = problemsOf(
      exampleWith((doc) => {
        doc.setIn(['rules', 0, 'conditionSet', 'conditions', 0, 'signal'], doc.createNode({ type: 'IMAGE_HASH_MATCH', args: { bankId: 'known-bad' } }));
        doc.setIn(['rules', 0, 'conditionSet', 'conditions', 1, 'conditions', 0, 'signal', 'args'], doc.createNode({ window: 7 }));
      }),
    );
    expect(problems).toEqual([
      { path: 'rules[0].conditionSet.conditions[0].signal.args.bankId', message: 'unknown argument (IMAGE_HASH_MATCH takes bankIds, maxDistance)' },
      { path: 'rules[0].conditionSet.conditions[1].conditions[0].signal.args.window', message: 'unknown argument (USER_SCORE takes no arguments)' },
    ]);
  });

  it('reports a role under an unknown name, and a createdAt or displayName field of the wrong type', () => {
    const problems = problemsOf(
      exampleWith((doc) => {
        doc.setIn(['itemTypes', 0, 'roles', 'creater'], 'author');
        doc.setIn(['itemTypes', 0, 'roles', 'createdAt'], 'edited');
        doc.setIn(['itemTypes', 0, 'roles', '__proto__'], 'author');
        doc.setIn(['itemTypes', 0, 'roles', 'displayName'], 'likes');
      }),
    );
    expect(problems).toEqual([
      { path: 'itemTypes[0].roles.createdAt', message: 'role createdAt must name a DATETIME, NUMBER, STRING field ("edited" is BOOLEAN)' },
      { path: 'itemTypes[0].roles.creater', message: 'unknown role "creater" (roles: creator, createdAt, thread, displayName)' },
      { path: 'itemTypes[0].roles.__proto__', message: 'unknown role "__proto__" (roles: creator, createdAt, thread, displayName)' },
      { path: 'itemTypes[0].roles.displayName', message: 'role displayName must name a STRING field ("likes" is NUMBER)' },
    ]);
  });

  it('reports unknown keys inside entities and strike references', () => {
    const problems = problemsOf(
      exampleWith((doc) => {
        doc.setIn(['policies', 1, 'parentID'], 'spam');
        doc.setIn(['strikes', 'thresholds', 0, 'actionId'], 'suspend');
      }),
    );
    expect(problems).toEqual([
      { path: 'policies[1].parentID', message: 'unknown key' },
      { path: 'strikes.thresholds[0].actionId', message: 'unknown action "suspend"' },
    ]);
  });

  it('fills each score setting left out with its default', () => {
    const config = parseOk('org: { id: tiny, name: Tiny }\nscores:\n  penaltyWeights: { LOW: 2 }\n');
    expect(config.scores).toEqual({ penaltyWeights: { NONE: 0, LOW: 2, MEDIUM: 3, HIGH: 9, SEVERE: 27 }, thresholds: [0.01, 0.05, 0.1, 0.25] });
    expect(parseOk('org: { id: tiny, name: Tiny }\nscores:\n').scores.thresholds).toEqual([0.01, 0.05, 0.1, 0.25]);
  });

  it('takes the inbound topic off unless the file enables it, and refuses any other key', () => {
    expect(parseOk('org: { id: tiny, name: Tiny }\n').inboundTopic).toEqual({ enabled: false });
    expect(parseOk('org: { id: tiny, name: Tiny }\ninboundTopic:\n').inboundTopic).toEqual({ enabled: false });
    expect(parseOk('org: { id: tiny, name: Tiny }\ninboundTopic: { enabled: true }\n').inboundTopic).toEqual({ enabled: true });
    const problems = problemsOf(
      exampleWith((doc) => {
        doc.setIn(['inboundTopic', 'enabled'], 'yes');
        doc.setIn(['inboundTopic', 'subject'], 'acme.items');
      }),
    );
    expect(problems).toEqual([
      { path: 'inboundTopic.enabled', message: 'must be true or false (got "yes")' },
      { path: 'inboundTopic.subject', message: 'unknown key' },
    ]);
  });

  it('has no partial-items endpoint unless the file names one, and reports each unusable key at its path', () => {
    expect(parseOk('org: { id: tiny, name: Tiny }\n').partialItems).toBeNull();
    expect(parseOk('org: { id: tiny, name: Tiny }\npartialItems:\n').partialItems).toBeNull();
    expect(parseOk('org: { id: tiny, name: Tiny }\npartialItems: { url: "https://p.example/items" }\n').partialItems).toEqual({
      url: 'https://p.example/items',
      headers: {},
      timeoutMs: 2000,
      cacheSeconds: 300,
      maxConcurrency: 8,
      retries: 2,
    });
    const problems = problemsOf(
      exampleWith((doc) => {
        doc.setIn(['partialItems', 'url'], 'ftp://p.example/items');
        doc.setIn(['partialItems', 'headers', 'Service-Signature'], 'forged');
        doc.setIn(['partialItems', 'timeoutMs'], 50);
        doc.setIn(['partialItems', 'cacheSeconds'], 1.5);
        doc.setIn(['partialItems', 'retries'], 9);
        doc.setIn(['partialItems', 'endpoint'], 'x');
      }),
    );
    expect(problems).toEqual([
      { path: 'partialItems.url', message: 'must be an absolute http(s) URL' },
      { path: 'partialItems.headers["Service-Signature"]', message: 'is set by Warden itself' },
      { path: 'partialItems.timeoutMs', message: 'must be at least 100' },
      { path: 'partialItems.cacheSeconds', message: 'must be an integer (got 1.5)' },
      { path: 'partialItems.retries', message: 'must be at most 5' },
      { path: 'partialItems.endpoint', message: 'unknown key' },
    ]);
  });

  it("accepts user info in the partial-items URL, sent as Basic credentials as a callback URL's, refusing it next to an Authorization header or when Basic could not carry it, never quoting it", () => {
    const section = (url: string, headers = '') => `org: { id: tiny, name: Tiny }\npartialItems: { url: "${url}"${headers} }\n`;
    // Accepted as any URL before, and every fetch then refused by the outbound guard.
    expect(parseOk(section('https://alice:s3cret@p.example/items', ', headers: { X-Tenant: acme }')).partialItems?.url).toBe(
      'https://alice:s3cret@p.example/items',
    );
    const both = problemsOf(section('https://alice:s3cret@p.example/items', ', headers: { authorization: "Bearer t" }'));
    expect(both).toEqual([
      {
        path: 'partialItems.url',
        message: 'has user info, sent as Authorization: Basic, and headers set Authorization too: keep one (docs/partial-items.md, "Credentials in the URL")',
      },
    ]);
    expect(problemsOf(section('https://al%3Aice:s3cret@p.example/items'))).toEqual([
      { path: 'partialItems.url', message: 'has a user name holding a colon (%3A), which Authorization: Basic cannot carry' },
    ]);
    expect(problemsOf(section('https://alice:s3cr%ZZet@p.example/items'))).toEqual([
      {
        path: 'partialItems.url',
        message: 'has user info that is not valid percent-encoding (the user name and password are sent as Authorization: Basic, decoded)',
      },
    ]);
    expect(JSON.stringify(both)).not.toContain('s3cret');
  });

  it('reports score weights and thresholds that are not usable, each at its path', () => {
    const problems = problemsOf(
      exampleWith((doc) => {
        doc.setIn(['scores', 'penaltyWeights', 'HIGH'], -1);
        doc.setIn(['scores', 'penaltyWeights', 'EXTREME'], 81);
        doc.setIn(['scores', 'thresholds'], [0.01, 0.2, 0.1, 'x']);
      }),
    );
    expect(problems).toEqual([
      { path: 'scores.penaltyWeights.HIGH', message: 'must be at least 0' },
      { path: 'scores.penaltyWeights.EXTREME', message: 'unknown key' },
      { path: 'scores.thresholds[3]', message: 'must be a number (got "x")' },
    ]);
    expect(problemsOf(exampleWith((doc) => doc.setIn(['scores', 'thresholds'], [0.01, 0.2, 0.1, 0.3])))).toEqual([
      { path: 'scores.thresholds[2]', message: 'must be greater than the threshold before it (0.2)' },
    ]);
    expect(problemsOf(exampleWith((doc) => doc.setIn(['scores', 'thresholds'], [0.01, 0.05, 0.1])))).toEqual([
      { path: 'scores.thresholds', message: expect.stringContaining('4') },
    ]);
  });

  it('reports every problem of a file, in document order', () => {
    const text = stringify({
      rules: [{ id: 'r', name: 'R', actionIds: ['nope'], conditionSet: { conjunction: 'AND', conditions: [] } }],
      org: { name: 'No id' },
      queues: [{ id: 'q' }],
      extra: true,
    });
    expect(problemsOf(text).map((problem) => problem.path)).toEqual([
      'rules[0].actionIds[0]',
      'rules[0].conditionSet.conditions',
      'org.id',
      'queues[0].name',
      'extra',
    ]);
  });

  it('reads management: (default file for every section) and refuses other values and keys with their path', () => {
    expect(parseOk('org: { id: tiny, name: Tiny }\nmanagement: { queues: console }\n').management).toEqual({ queues: 'console', sso: 'file' });
    const result = parseOrgConfig('org: { id: tiny, name: Tiny }\nmanagement: { queues: dashboard, rules: console }\n', {
      format: 'yaml',
      env: {},
      readHashesFile: () => '',
    });
    expect(result.ok).toBe(false);
    expect(!result.ok && result.problems).toEqual([
      { path: 'management.queues', message: expect.stringMatching(/file.*console.*dashboard/) },
      { path: 'management.rules', message: 'unknown key' },
    ]);
  });
});
