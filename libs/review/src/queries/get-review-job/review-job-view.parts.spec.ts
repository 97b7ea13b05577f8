import { describe, expect, it } from 'vitest';
import type { ItemTypeDefinition } from '#warden/catalog';
import { MAX_FREE_TEXT_LENGTH } from '#warden/kernel';
import type { Evaluation } from '#warden/rules';
import {
  byReportedAt,
  ContextBudget,
  contextItems,
  explanationsOf,
  fieldsWithRoles,
  hashMatchesOf,
  itemTimeOf,
  MAX_REPORTS_SHOWN,
  relatedRefs,
  reportsShown,
} from './review-job-view.parts.js';

const comment: ItemTypeDefinition = {
  id: 'comment',
  name: 'Comment',
  kind: 'CONTENT',
  version: null,
  fields: [
    { name: 'text', type: 'STRING', required: true, array: false, itemTypeIds: [] },
    { name: 'at', type: 'DATETIME', required: false, array: false, itemTypeIds: [] },
    { name: 'author', type: 'RELATED_ITEM', required: false, array: false, itemTypeIds: ['user'] },
    { name: 'mentions', type: 'RELATED_ITEM', required: false, array: true, itemTypeIds: [] },
  ],
  roles: { creator: 'author' },
};
const post: ItemTypeDefinition = { ...comment, id: 'post', name: 'Post', roles: { createdAt: 'at', creator: 'author' } };
const types = new Map([
  ['comment', comment],
  ['post', post],
]);
const c = (id: string, at?: string, typeId = 'comment') => ({ id, typeId, data: { text: id, ...(at ? { at } : {}) } });

describe('job view parts', () => {
  it("lists a mass-reported item's newest reports, oldest first; a job with fewer lists them all", () => {
    const r = (n: number) => ({ n, reason: null });
    const reports = Array.from({ length: MAX_REPORTS_SHOWN + 7 }, (_, i) => r(i));
    const shown = reportsShown(reports);
    expect(shown).toHaveLength(MAX_REPORTS_SHOWN);
    expect([shown[0], shown.at(-1)]).toEqual([r(7), r(MAX_REPORTS_SHOWN + 6)]);
    expect(reportsShown([r(1), r(2), r(3)])).toEqual([r(1), r(2), r(3)]);
  });

  it('shows a reason recorded before the length limit cut to it', () => {
    const [long, short] = reportsShown([
      { id: 'a', reason: '😀'.repeat(250_000) },
      { id: 'b', reason: 'spam' },
    ]);
    expect(long).toEqual({ id: 'a', reason: '😀'.repeat(MAX_FREE_TEXT_LENGTH) });
    expect(short).toEqual({ id: 'b', reason: 'spam' });
  });

  it("admits reports' contexts, newest first, while their distinct items fit the budget; the newest always", () => {
    const item = (id: string, chars: number) => ({ id, typeId: 'comment', data: { text: 'x'.repeat(chars) } });
    const budget = new ContextBudget(10_000);
    // The newest report alone is over the budget: shown, and nothing older is.
    expect(budget.admit({ thread: [item('huge', 20_000)] })).toBe(true);
    expect(budget.admit({ thread: [item('small', 10)] })).toBe(false);

    const shared = Array.from({ length: 5 }, (_, i) => item(`t${i}`, 1_000));
    const repeating = new ContextBudget(10_000);
    // Fifty reports repeating one thread of ~5,250 characters: counted once, all admitted.
    for (let i = 0; i < 50; i++) expect(repeating.admit({ thread: shared, additionalItems: [] })).toBe(true);
    // New items past the budget: refused, and every older report after that too, even a small one.
    expect(repeating.admit({ thread: [item('new-1', 3_000), item('new-2', 3_000)] })).toBe(false);
    expect(repeating.admit({ thread: shared })).toBe(false);
    expect(repeating.admit({})).toBe(false);

    // The same id with other data is held again, so it counts again.
    const varying = new ContextBudget(10_000);
    expect(varying.admit({ thread: [item('t', 6_000)] })).toBe(true);
    expect(varying.admit({ thread: [{ ...item('t', 6_000), data: { text: 'y'.repeat(6_000) } }] })).toBe(false);
  });

  it('orders the thread by time (createdAt role, else a DATETIME field), items without one last in the order sent, each once, tagged when reported', () => {
    const thread = contextItems(
      [
        { items: [c('late', '2025-01-03T00:00:00Z'), c('none-1'), c('early', '2025-01-01T00:00:00Z', 'post')], reported: [{ id: 'late', typeId: 'comment' }] },
        { items: [c('none-2'), c('mid', '2025-01-02T00:00:00Z'), c('late', '2025-01-03T00:00:00Z')], reported: [{ id: 'mid', typeId: 'comment' }] },
      ],
      types,
    );
    expect(thread.map((i) => [i.id, i.reported, i.createdAt])).toEqual([
      ['early', false, '2025-01-01T00:00:00.000Z'],
      ['mid', true, '2025-01-02T00:00:00.000Z'],
      ['late', true, '2025-01-03T00:00:00.000Z'],
      ['none-1', false, null],
      ['none-2', false, null],
    ]);
    expect(thread[0]!.typeName).toBe('Post');
  });

  it('reads no time from a value that is not a date, or an unknown type', () => {
    expect(itemTimeOf({ at: 'yesterday' }, comment)).toBeNull();
    expect(itemTimeOf({ at: '2025-01-01T00:00:00Z' }, undefined)).toBeNull();
  });

  it('reads a time as item validation accepted it: a comma fraction, an hours-only offset, UTC without an offset', () => {
    expect(itemTimeOf({ at: '2025-01-01T10:00:00,5Z' }, comment)).toBe('2025-01-01T10:00:00.500Z');
    expect(itemTimeOf({ at: '2025-01-01T10:00+02' }, comment)).toBe('2025-01-01T08:00:00.000Z');
    expect(itemTimeOf({ at: '2025-01-01T10:00' }, comment)).toBe('2025-01-01T10:00:00.000Z');
  });

  it('orders reports by the instant their reportedAt names, whatever its offset; an unreadable one last', () => {
    const reports = [
      { reportedAt: '2026-03-01T12:00:00+05:00' },
      { reportedAt: 'not a time' },
      { reportedAt: '2026-03-01T08:00:00Z' },
      { reportedAt: '2026-03-01T06:59:59,5Z' },
    ];
    expect([...reports].sort(byReportedAt).map((r) => r.reportedAt)).toEqual([
      '2026-03-01T06:59:59,5Z',
      '2026-03-01T12:00:00+05:00',
      '2026-03-01T08:00:00Z',
      'not a time',
    ]);
  });

  it('gives each field its roles', () => {
    expect(fieldsWithRoles(post).map((f) => [f.name, f.roles])).toEqual([
      ['text', []],
      ['at', ['createdAt']],
      ['author', ['creator']],
      ['mentions', []],
    ]);
  });

  it('takes the RELATED_ITEM references, single or listed, each once, up to the limit', () => {
    const data = {
      author: { id: 'u1', typeId: 'user' },
      mentions: [{ id: 'u2', typeId: 'user' }, { id: 'u1', typeId: 'user' }, 'junk', { id: 'u3', typeId: 'user' }],
    };
    expect(relatedRefs(data, comment, 2)).toEqual([
      { field: 'author', id: 'u1', typeId: 'user' },
      { field: 'mentions', id: 'u2', typeId: 'user' },
    ]);
  });

  it('explains the rules that published the action, and lists their hash matches with the bank name', () => {
    const evaluation = {
      rules: [
        {
          id: 'hash',
          name: 'Hash',
          status: 'LIVE',
          outcome: 'passed',
          capped: false,
          conditions: [{ path: 'conditions[0]', outcome: 'passed', value: true, detail: { bankId: 'bad', hash: 'ab', distance: 3 } }],
        },
        { id: 'other', name: 'Other', status: 'LIVE', outcome: 'passed', capped: false, conditions: [] },
        { id: 'failed', name: 'Failed', status: 'LIVE', outcome: 'failed', capped: false, conditions: [] },
      ],
    } as unknown as Evaluation;
    const rules = explanationsOf(evaluation, ['hash']);
    expect(rules.map((r) => r.id)).toEqual(['hash']);
    expect(explanationsOf(evaluation, []).map((r) => r.id)).toEqual(['hash', 'other']);
    expect(hashMatchesOf(rules, new Map([['bad', 'Known bad']]))).toEqual([{ ruleId: 'hash', bankId: 'bad', bankName: 'Known bad', distance: 3, hash: 'ab' }]);
  });
});
