import { describe, expect, it } from 'vitest';
import { parseCandidateRule, type StoredCatalog } from './candidate-rule.js';

/** An organization's stored catalog: one item type, nothing else. */
function storedWith(itemTypeId: string): StoredCatalog {
  return {
    orgId: 'shop',
    itemTypes: [
      {
        id: itemTypeId,
        name: 'Post',
        kind: 'CONTENT',
        version: null,
        fields: [{ name: 'text', type: 'STRING', required: true, array: false, itemTypeIds: [] }],
        roles: {},
      },
    ],
    policies: [],
    actions: [],
    textBanks: [],
    hashBanks: [],
  };
}

const CANDIDATE = `rule:
  id: spam
  name: Spam
  status: LIVE
  itemTypeIds: [post]
  conditionSet:
    conjunction: OR
    conditions:
      - { input: { field: text }, signal: { type: TEXT_CONTAINS, args: { terms: [lottery] } }, comparator: EQUALS, value: true }
`;

describe('parseCandidateRule', () => {
  it('validates the candidate against the stored catalog', () => {
    const parsed = parseCandidateRule(CANDIDATE, storedWith('post'), {});
    expect(parsed.ok && parsed.rule.id).toBe('spam');
  });

  it('reads the file as apply reads a configuration: an unknown tag is refused, not read as a string', () => {
    const parsed = parseCandidateRule(CANDIDATE.replace('name: Spam', 'name: !secret Spam'), storedWith('post'), {});
    expect(parsed.ok ? [] : parsed.problems).toEqual([{ path: '', message: 'invalid YAML: Unresolved tag: !secret at line 3, column 9' }]);
  });

  it("reports the candidate's own problems at rule.…", () => {
    const parsed = parseCandidateRule(CANDIDATE.replace('status: LIVE', 'status: SOMETIMES'), storedWith('post'), {});
    expect(parsed.ok ? [] : parsed.problems.map((p) => p.path)).toEqual(['rule.status']);
  });

  it('says so when the stored configuration itself no longer passes the checks apply makes today, not as a problem of the rule file', () => {
    // Stored before ids with a zero-width space were refused (docs/configuration-as-code.md).
    const parsed = parseCandidateRule(CANDIDATE.replace('[post]', '["po\u200bst"]'), storedWith('po\u200bst'), {});
    expect(parsed.ok).toBe(false);
    const [problem] = parsed.ok ? [] : parsed.problems;
    expect(problem?.path).toBe('(stored configuration) itemTypes[0].id');
    expect(problem?.message).toMatch(/^.+; the organization's stored configuration no longer passes apply's checks: apply a corrected configuration first$/);
  });
});
