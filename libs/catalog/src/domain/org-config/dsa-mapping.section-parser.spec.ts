import { describe, expect, it } from 'vitest';
import { desiredCatalog } from '../desired-catalog.js';
import { initialCatalogState, orgConfigDecider, planCatalog } from '../org-config.decider.js';
import { type ConfigProblem, parseOrgConfig } from '../org-config.parser.js';
import { transparencyWarnings } from './dsa-mapping.section-parser.js';

const options = { format: 'yaml' as const, env: {}, readHashesFile: () => '' };
const parse = (text: string) => parseOrgConfig(text, options);
const problemsOf = (text: string): ConfigProblem[] => {
  const result = parse(text);
  if (result.ok) throw new Error('expected problems, the file was accepted');
  return result.problems;
};
const configOf = (text: string) => {
  const result = parse(text);
  if (!result.ok) throw new Error(JSON.stringify(result.problems, null, 2));
  return result.config;
};

const MAPPED = `
org: { id: acme, name: Acme }
itemTypes:
  - id: post
    name: Post
    kind: CONTENT
    fields: [{ name: text, type: STRING }]
    dsa: { contentType: [CONTENT_TYPE_TEXT], contentLanguage: EN }
  - id: flagger
    name: Trusted flagger account
    kind: USER
policies:
  - id: hate
    name: Hate speech
    dsa:
      category: STATEMENT_CATEGORY_ILLEGAL_OR_HARMFUL_SPEECH
      categorySpecification: [KEYWORD_HATE_SPEECH]
      decisionGround: DECISION_GROUND_ILLEGAL_CONTENT
      illegalContentLegalGround: "StGB § 130"
      illegalContentExplanation: "Incites hatred against a protected group."
  - id: spam
    name: Spam
    dsa:
      category: STATEMENT_CATEGORY_SCAMS_AND_FRAUD
      decisionGround: DECISION_GROUND_INCOMPATIBLE_CONTENT
      incompatibleContentGround: "Terms of service, section 4.2"
      incompatibleContentExplanation: "Unsolicited repetitive commercial content."
      decisionGroundReferenceUrl: https://acme.example/terms#4.2
actions:
  - id: remove
    name: Remove
    kind: CUSTOMER_DEFINED_ACTION
    callback: { url: https://acme.example/hooks }
    dsa: { decisionVisibility: [DECISION_VISIBILITY_CONTENT_REMOVED] }
  - id: suspend
    name: Suspend for a week
    kind: CUSTOMER_DEFINED_ACTION
    callback: { url: https://acme.example/hooks }
    dsa: { decisionAccount: DECISION_ACCOUNT_SUSPENDED, durationDays: 7, defaultPolicyId: spam }
  - id: thank
    name: Thank the reporter
    kind: CUSTOMER_DEFINED_ACTION
    callback: { url: https://acme.example/hooks }
    dsa: false
transparency:
  territorialScope: [EU]
  trustedFlaggers: [flagger]
`;

describe('configuration: the DSA mapping', () => {
  it('parses policies, actions, item types and the transparency section, expanding EU to its member states', () => {
    const config = configOf(MAPPED);
    expect(config.policies[0]!.dsa).toEqual({
      category: 'STATEMENT_CATEGORY_ILLEGAL_OR_HARMFUL_SPEECH',
      categorySpecification: ['KEYWORD_HATE_SPEECH'],
      decisionGround: 'DECISION_GROUND_ILLEGAL_CONTENT',
      illegalContentLegalGround: 'StGB § 130',
      illegalContentExplanation: 'Incites hatred against a protected group.',
    });
    expect(config.actions.map((a) => a.dsa)).toEqual([
      { decisionVisibility: ['DECISION_VISIBILITY_CONTENT_REMOVED'] },
      { decisionAccount: 'DECISION_ACCOUNT_SUSPENDED', durationDays: 7, defaultPolicyId: 'spam' },
      false,
    ]);
    expect(config.itemTypes[0]!.dsa).toEqual({ contentType: ['CONTENT_TYPE_TEXT'], contentLanguage: 'EN' });
    expect(config.itemTypes[1]!.dsa).toBeUndefined();
    expect(config.transparency.enabled).toBe(true);
    expect(config.transparency.territorialScope).toHaveLength(27);
    expect(config.transparency.territorialScope).not.toContain('NO');
    expect(config.transparency.trustedFlaggers).toEqual(['flagger']);
  });

  it("takes the Transparency Database's endpoint and the API token from a ${NAME} reference, as an authorization header", () => {
    const text = 'org: { id: tiny, name: Tiny }\ntransparency:\n  territorialScope: [DE]\n  submission: { token: "${DSA_TOKEN}" }\n';
    const parsed = parseOrgConfig(text, { ...options, env: { DSA_TOKEN: 'X|ybq.k' } });
    if (!parsed.ok) throw new Error(JSON.stringify(parsed.problems));
    expect(parsed.config.transparency.submission).toEqual({
      url: 'https://transparency.dsa.ec.europa.eu/api/v1/statements',
      headers: { authorization: 'Bearer X|ybq.k' },
    });
    expect(configOf('org: { id: tiny, name: Tiny }\ntransparency: { territorialScope: [DE] }\n').transparency).not.toHaveProperty('submission');
    expect(
      problemsOf('org: { id: tiny, name: Tiny }\ntransparency:\n  territorialScope: [DE]\n  submission: { url: "ftp://x", token: "a b" }\n')
        .map((p) => p.path)
        .sort(),
    ).toEqual(['transparency.submission.token', 'transparency.submission.url']);
    // A token written as a YAML number is refused without being quoted back.
    const numeric = problemsOf('org: { id: tiny, name: Tiny }\ntransparency:\n  territorialScope: [DE]\n  submission: { token: 987654321 }\n');
    expect(numeric).toEqual([{ path: 'transparency.submission.token', message: 'must be a string (quote it; the value is not shown, it may hold a secret)' }]);
    expect(JSON.stringify(numeric)).not.toContain('987654321');
  });

  it('refuses user info in the submission URL at its path, without quoting it: the token is what the Database takes', () => {
    // Accepted before, and then every attempt refused by the outbound guard until the batch was abandoned.
    const problems = problemsOf(
      'org: { id: tiny, name: Tiny }\ntransparency:\n  territorialScope: [DE]\n  submission: { url: "https://dsa:s3cret@transparency.example/api/v1/statements", token: t }\n',
    );
    expect(problems).toEqual([
      {
        path: 'transparency.submission.url',
        message:
          'has user info, which is not sent: the Database takes the token, sent as Authorization: Bearer (remove the user name and password from the URL)',
      },
    ]);
    expect(JSON.stringify(problems)).not.toContain('s3cret');
  });

  it('leaves transparency off, and every entity unmapped, in a file without them', () => {
    const config = configOf('org: { id: tiny, name: Tiny }\npolicies: [{ id: p, name: P }]\n');
    expect(config.transparency).toEqual({ enabled: false, territorialScope: [], trustedFlaggers: [], accountType: null });
    expect('dsa' in config.policies[0]!).toBe(false);
  });

  it('refuses what the Database would refuse, each problem at its path', () => {
    const text = `
org: { id: acme, name: Acme }
itemTypes:
  - { id: post, name: Post, kind: CONTENT, dsa: { contentType: [CONTENT_TYPE_OTHER] } }
  - { id: clip, name: Clip, kind: CONTENT, dsa: { contentType: [CONTENT_TYPE_VIDEO], contentLanguage: XX } }
policies:
  - id: hate
    name: Hate
    dsa: { category: STATEMENT_CATEGORY_HATE, decisionGround: DECISION_GROUND_ILLEGAL_CONTENT }
  - id: spam
    name: Spam
    dsa: { category: STATEMENT_CATEGORY_SCAMS_AND_FRAUD, decisionGround: DECISION_GROUND_ILLEGAL_CONTENT, illegalContentLegalGround: x, illegalContentExplanation: y, incompatibleContentGround: z }
actions:
  - { id: remove, name: Remove, kind: CUSTOMER_DEFINED_ACTION, callback: { url: https://a.example }, dsa: {} }
  - { id: hide, name: Hide, kind: CUSTOMER_DEFINED_ACTION, callback: { url: https://a.example }, dsa: { decisionVisibility: [DECISION_VISIBILITY_OTHER], defaultPolicyId: nope } }
  - { id: mrt, name: Review, kind: ENQUEUE_TO_MRT, dsa: false }
transparency:
  territorialScope: [US]
  trustedFlaggers: [nobody]
`;
    const problems = problemsOf(text).map((p) => `${p.path}: ${p.message}`);
    expect(problems).toEqual(
      expect.arrayContaining([
        'itemTypes[0].dsa.contentTypeOther: is required with CONTENT_TYPE_OTHER in contentType',
        expect.stringMatching(/^itemTypes\[1\]\.dsa\.contentLanguage: must be one of /),
        expect.stringMatching(/^policies\[0\]\.dsa\.category: must be one of STATEMENT_CATEGORY_ANIMAL_WELFARE, /),
        'policies[1].dsa.incompatibleContentGround: is only allowed with decisionGround DECISION_GROUND_INCOMPATIBLE_CONTENT',
        expect.stringMatching(/^actions\[0\]\.dsa: /),
        'actions[1].dsa.decisionVisibilityOther: is required with DECISION_VISIBILITY_OTHER in decisionVisibility',
        'actions[1].dsa.defaultPolicyId: unknown policy "nope"',
        'actions[2].dsa: is only allowed on a CUSTOMER_DEFINED_ACTION: sending to review restricts nothing',
        expect.stringMatching(/^transparency\.territorialScope\[0\]: must be one of AT, /),
        'transparency.trustedFlaggers[0]: unknown item type "nobody"',
      ]),
    );
  });

  it('needs the grounds a decision ground implies, and a territorial scope once transparency is on', () => {
    const text = `
org: { id: acme, name: Acme }
policies:
  - { id: hate, name: Hate, dsa: { category: STATEMENT_CATEGORY_VIOLENCE, decisionGround: DECISION_GROUND_ILLEGAL_CONTENT } }
transparency: { trustedFlaggers: [] }
`;
    expect(problemsOf(text).map((p) => `${p.path}: ${p.message}`)).toEqual([
      'policies[0].dsa.illegalContentLegalGround: is required with decisionGround DECISION_GROUND_ILLEGAL_CONTENT',
      'policies[0].dsa.illegalContentExplanation: is required with decisionGround DECISION_GROUND_ILLEGAL_CONTENT',
      'transparency.territorialScope: is required (EU/EEA country codes, or EU, EEA)',
    ]);
  });

  it('warns, with transparency on, of the actions, policies, item types and rules a statement would lack', () => {
    const text = `${MAPPED.replace('dsa: { contentType: [CONTENT_TYPE_TEXT], contentLanguage: EN }', 'fields: []')}
rules:
  - id: no-policy
    name: No policy
    status: LIVE
    itemTypeIds: [post]
    actionIds: [remove]
    conditionSet: { conjunction: AND, conditions: [{ input: { field: text }, signal: { type: TEXT_CONTAINS, args: { terms: [x] } }, comparator: EQUALS, value: true }] }
`.replace('    fields: [{ name: text, type: STRING }]\n    fields: []', '    fields: [{ name: text, type: STRING }]');
    const config = configOf(text.replace('    name: Thank the reporter', '    name: Thank the reporter\n').replace('    dsa: false\n', ''));
    expect(transparencyWarnings(config)).toEqual([
      'action thank has no dsa mapping: decisions taking it get no statement of reasons (map its restriction, or dsa: false)',
      'item type post has no dsa mapping: statements about its items lack a content type',
      'item type flagger has no dsa mapping: statements about its items lack a content type',
      "rule no-policy names no policy with a dsa mapping: its decisions' statements lack a category and ground",
    ]);
    expect(transparencyWarnings({ ...config, transparency: { ...config.transparency, enabled: false } })).toEqual([]);
  });

  it('records nothing when a file without any mapping is applied again to a catalog stored before the mapping existed', () => {
    const text =
      'org: { id: tiny, name: Tiny }\npolicies: [{ id: p, name: P }]\nactions: [{ id: a, name: A, kind: CUSTOMER_DEFINED_ACTION, callback: { url: https://a.example } }]\n';
    const desired = desiredCatalog(configOf(text)).catalog;
    const first = orgConfigDecider.decide({ type: 'ApplyCatalog', desired, prune: false }, initialCatalogState);
    // A stored TransparencySettingsChanged would be news to older streams: the defaults are not one.
    expect(first.map((e) => e.type)).toEqual([
      'PolicyDefined',
      'ActionDefined',
      'OrgSettingsChanged',
      'StrikeSettingsChanged',
      'AppealSettingsChanged',
      'SsoSettingsChanged',
    ]);
    const state = first.reduce(orgConfigDecider.evolve, initialCatalogState);
    expect(planCatalog({ type: 'ApplyCatalog', desired, prune: false }, state).events).toEqual([]);
  });

  it('records the mapping and the section when they are added, and nothing more on the next apply', () => {
    const desired = desiredCatalog(configOf(MAPPED)).catalog;
    const first = orgConfigDecider.decide({ type: 'ApplyCatalog', desired, prune: false }, initialCatalogState);
    expect(first.filter((e) => e.type === 'TransparencySettingsChanged')).toHaveLength(1);
    const state = first.reduce(orgConfigDecider.evolve, initialCatalogState);
    expect(state.entities.policy['hate']!.entity.dsa?.category).toBe('STATEMENT_CATEGORY_ILLEGAL_OR_HARMFUL_SPEECH');
    expect(state.transparency?.trustedFlaggers).toEqual(['flagger']);
    expect(planCatalog({ type: 'ApplyCatalog', desired, prune: false }, state).events).toEqual([]);
  });
});
