import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule, { type FormatsPlugin } from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { renderStatement, type StatementCatalog, type StatementFacts } from './statement-of-reasons.js';
import { dsaAction as action, dsaItemType as itemType, dsaPolicy as policy } from '../../../../test/support/transparency-fixture.js';

const schema = JSON.parse(readFileSync(new URL('../../schema/statement-of-reasons.schema.json', import.meta.url), 'utf8')) as object;
const ajv = new Ajv2020({ allErrors: true, strict: false });
// ajv-formats is CommonJS: its default export arrives wrapped under ESM.
const addFormats = ((addFormatsModule as unknown as { default?: FormatsPlugin }).default ?? addFormatsModule) as FormatsPlugin;
addFormats(ajv);
const validateStatement = ajv.compile(schema);

const catalog: StatementCatalog = {
  policies: new Map([
    [
      'hate',
      policy('hate', {
        category: 'STATEMENT_CATEGORY_ILLEGAL_OR_HARMFUL_SPEECH',
        categorySpecification: ['KEYWORD_HATE_SPEECH'],
        decisionGround: 'DECISION_GROUND_ILLEGAL_CONTENT',
        illegalContentLegalGround: 'StGB § 130',
        illegalContentExplanation: 'Incites hatred.',
      }),
    ],
    [
      'spam',
      policy('spam', {
        category: 'STATEMENT_CATEGORY_SCAMS_AND_FRAUD',
        decisionGround: 'DECISION_GROUND_INCOMPATIBLE_CONTENT',
        incompatibleContentGround: 'Terms 4.2',
        incompatibleContentExplanation: 'Spam.',
        incompatibleContentIllegal: false,
        decisionGroundReferenceUrl: 'https://acme.example/terms',
      }),
    ],
    ['unmapped', policy('unmapped', undefined)],
  ]),
  actions: new Map([
    ['remove', action('remove', { decisionVisibility: ['DECISION_VISIBILITY_CONTENT_REMOVED'] })],
    [
      'suspend',
      action('suspend', {
        decisionAccount: 'DECISION_ACCOUNT_SUSPENDED',
        decisionProvision: 'DECISION_PROVISION_PARTIAL_SUSPENSION',
        durationDays: 7,
        defaultPolicyId: 'spam',
      }),
    ],
    [
      'label',
      action('label', {
        decisionVisibility: ['DECISION_VISIBILITY_OTHER'],
        decisionVisibilityOther: 'Warning screen',
        decisionMonetary: 'DECISION_MONETARY_OTHER',
        decisionMonetaryOther: 'Ads off',
      }),
    ],
    ['thank', action('thank', false)],
    ['bare', action('bare', undefined)],
  ]),
  itemTypes: new Map([
    ['post', itemType('post', { contentType: ['CONTENT_TYPE_TEXT', 'CONTENT_TYPE_OTHER'], contentTypeOther: 'Poll', contentLanguage: 'DE' })],
    ['user', itemType('user', { contentType: ['CONTENT_TYPE_OTHER'], contentTypeOther: 'Account' })],
    ['raw', itemType('raw', undefined)],
  ]),
  transparency: { enabled: true, territorialScope: ['AT', 'DE'], trustedFlaggers: ['flagger'], accountType: 'ACCOUNT_TYPE_PRIVATE' },
};

const facts = (over: Partial<StatementFacts> = {}): StatementFacts => ({
  puid: 'warden-0123abcd',
  trigger: 'rule',
  item: { id: 'p1', typeId: 'post' },
  actionId: 'remove',
  policyIds: ['hate'],
  decidedAt: '2026-03-02T10:00:00.000Z',
  contentDate: '2026-03-01',
  notice: null,
  automatedDetection: true,
  automatedDecision: true,
  ...over,
});

const statementOf = (f: StatementFacts) => {
  const rendered = renderStatement(f, catalog);
  if (rendered.kind !== 'statement') throw new Error(JSON.stringify(rendered));
  return rendered.statement;
};

describe('statements of reasons', () => {
  const cases: Array<[string, StatementFacts]> = [
    ['a rule action on illegal content', facts()],
    [
      'a moderator decision after a notice, incompatible with the terms',
      facts({
        trigger: 'decision',
        policyIds: ['spam', 'hate'],
        notice: { firstAt: '2026-03-02T09:00:00Z', reporterTypes: ['user'] },
        automatedDetection: false,
        automatedDecision: false,
      }),
    ],
    [
      "a moderator decision after a trusted flagger's notice, flagged by a rule",
      facts({ trigger: 'decision', notice: { firstAt: '2026-03-02T09:00:00Z', reporterTypes: ['flagger', 'user'] }, automatedDecision: false }),
    ],
    ['an executed action with other restrictions', facts({ trigger: 'post-actions', actionId: 'label', automatedDetection: false, automatedDecision: false })],
    [
      'a strike threshold (no policy: the default policy)',
      facts({ trigger: 'strike-threshold', item: { id: 'u1', typeId: 'user' }, actionId: 'suspend', policyIds: [], automatedDetection: false }),
    ],
  ];

  it.each(cases)('%s validates against the schema written from the Database documentation', (_, f) => {
    const statement = statementOf(f);
    expect(validateStatement(statement), JSON.stringify(validateStatement.errors)).toBe(true);
  });

  it('states the source, automated means, grounds, restriction and dates from the facts and the mapping', () => {
    expect(statementOf(cases[0]![1])).toMatchObject({
      decision_visibility: ['DECISION_VISIBILITY_CONTENT_REMOVED'],
      decision_ground: 'DECISION_GROUND_ILLEGAL_CONTENT',
      illegal_content_legal_ground: 'StGB § 130',
      category: 'STATEMENT_CATEGORY_ILLEGAL_OR_HARMFUL_SPEECH',
      category_specification: ['KEYWORD_HATE_SPEECH'],
      content_type: ['CONTENT_TYPE_TEXT', 'CONTENT_TYPE_OTHER'],
      content_language: 'DE',
      territorial_scope: ['AT', 'DE'],
      account_type: 'ACCOUNT_TYPE_PRIVATE',
      content_date: '2026-03-01',
      application_date: '2026-03-02',
      source_type: 'SOURCE_VOLUNTARY',
      automated_detection: 'Yes',
      automated_decision: 'AUTOMATED_DECISION_FULLY',
      puid: 'warden-0123abcd',
    });
    const notice = statementOf(cases[1]![1]);
    expect(notice).toMatchObject({
      source_type: 'SOURCE_ARTICLE_16',
      automated_detection: 'No',
      automated_decision: 'AUTOMATED_DECISION_NOT_AUTOMATED',
      category: 'STATEMENT_CATEGORY_SCAMS_AND_FRAUD',
      category_addition: ['STATEMENT_CATEGORY_ILLEGAL_OR_HARMFUL_SPEECH'],
      incompatible_content_illegal: 'No',
    });
    expect(notice['illegal_content_legal_ground']).toBeUndefined();
    expect(statementOf(cases[2]![1])).toMatchObject({
      source_type: 'SOURCE_TRUSTED_FLAGGER',
      automated_detection: 'Yes',
      automated_decision: 'AUTOMATED_DECISION_NOT_AUTOMATED',
    });
    expect(statementOf(cases[4]![1])).toMatchObject({
      decision_account: 'DECISION_ACCOUNT_SUSPENDED',
      end_date_account_restriction: '2026-03-09',
      end_date_service_restriction: '2026-03-09',
      category: 'STATEMENT_CATEGORY_SCAMS_AND_FRAUD',
      automated_decision: 'AUTOMATED_DECISION_FULLY',
    });
  });

  it('states nothing for an action mapped false, and names what an incomplete mapping lacks', () => {
    expect(renderStatement(facts({ actionId: 'thank' }), catalog)).toEqual({ kind: 'none' });
    expect(renderStatement(facts({ actionId: 'bare', policyIds: ['unmapped'], item: { id: 'x', typeId: 'raw' } }), catalog)).toEqual({
      kind: 'incomplete',
      problems: ['action bare has no dsa mapping', 'none of the policies unmapped has a dsa mapping', 'item type raw has no dsa mapping'],
    });
    expect(renderStatement(facts(), { ...catalog, transparency: { ...catalog.transparency, enabled: false } }).kind).toBe('incomplete');
  });

  it('the schema refuses what the Database refuses (it can fail)', () => {
    const good = statementOf(facts());
    expect(validateStatement({ ...good, automated_decision: 'maybe' })).toBe(false);
    expect(validateStatement({ ...good, puid: 'has space' })).toBe(false);
    const { illegal_content_explanation: _, ...missing } = good;
    expect(validateStatement(missing)).toBe(false);
    const { decision_visibility: __, ...noRestriction } = good;
    expect(validateStatement(noRestriction)).toBe(false);
    expect(validateStatement({ ...good, territorial_scope: ['US'] })).toBe(false);
    expect(validateStatement({ ...good, reporter: 'someone' })).toBe(false);
  });
});
