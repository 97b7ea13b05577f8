import { describe, expect, it } from 'vitest';
import type { ItemTypeDefinition } from '#warden/catalog/contracts';
import type { InputCatalog } from '#warden/catalog/contracts';
import { checkReport } from './report-input.js';

const post: ItemTypeDefinition = {
  id: 'post',
  name: 'Post',
  kind: 'CONTENT',
  version: null,
  fields: [
    { name: 'text', type: 'STRING', required: true, array: false, itemTypeIds: [] },
    { name: 'createdAt', type: 'DATETIME', required: false, array: false, itemTypeIds: [] },
  ],
  roles: {},
};
const user: ItemTypeDefinition = { id: 'user', name: 'User', kind: 'USER', version: null, fields: [], roles: {} };
const catalog: InputCatalog = {
  itemTypes: new Map([
    ['post', post],
    ['user', user],
  ]),
  policyIds: new Set(['spam']),
};
const limits = { maxItemBytes: 2000, maxItemsPerList: 3 };

const valid = () => ({
  reporter: { kind: 'user', id: 'u1', typeId: 'user' },
  reportedAt: '2026-11-23T12:00:00Z',
  reportedItem: { id: 'p1', typeId: 'post', data: { text: 'bad' } },
  reportedForReason: { policyId: 'spam', reason: 'it is spam', csam: false },
  reportedItemThread: [{ id: 'p0', typeId: 'post', data: { createdAt: '2026-11-23T11:00:00Z' } }],
  reportedItemsInThread: [{ id: 'p0', typeId: 'post' }],
  additionalItems: [{ id: 'u9', typeId: 'user', data: {} }],
});

const pointers = (body: Record<string, unknown>) => {
  const result = checkReport(body, catalog, limits);
  return result.ok ? [] : [...result.tooLarge, ...result.problems].map((p) => p.pointer);
};

describe('checkReport', () => {
  it('accepts a complete report; thread items need no required fields', () => {
    const result = checkReport(valid(), catalog, limits);
    expect(result).toMatchObject({
      ok: true,
      input: { policyId: 'spam', reason: 'it is spam', csam: false, reportedInThread: [{ id: 'p0', typeId: 'post' }] },
    });
  });

  it('accepts a minimal report: no reason, no context', () => {
    const { reporter, reportedAt, reportedItem } = valid();
    expect(checkReport({ reporter, reportedAt, reportedItem }, catalog, limits)).toMatchObject({
      ok: true,
      input: { policyId: null, reason: null, csam: false, thread: [], additionalItems: [] },
    });
  });

  it('names every problem with its pointer', () => {
    const body = {
      ...valid(),
      reporter: { kind: 'moderator', id: 'u1', typeId: 'post' },
      reportedAt: '2026-11-23',
      reportedItem: { id: 'p1', typeId: 'post', data: {} },
      reportedForReason: { policyId: 'nope', csam: 'yes' },
      reportedItemThread: [
        { id: 'p0', typeId: 'post', data: {} },
        { id: 'p5', typeId: 'post', data: { createdAt: 'yesterday' } },
        { id: 'p6', typeId: 'ghost', data: {} },
      ],
      reportedItemsInThread: [
        { id: 'p0', typeId: 'post' },
        { id: 'zz', typeId: 'post' },
      ],
    };
    expect(pointers(body)).toEqual([
      '/reporter/kind',
      '/reporter/typeId',
      '/reportedAt',
      '/reportedItem/data/text',
      '/reportedForReason/policyId',
      '/reportedForReason/csam',
      '/reportedItemThread/1/data/createdAt',
      '/reportedItemThread/2/typeId',
      '/reportedItemsInThread/1',
    ]);
  });

  it('requires reporter, reportedAt and reportedItem', () => {
    expect(pointers({})).toEqual(['/reporter', '/reportedAt', '/reportedItem']);
  });

  it('limits the reason to 5,000 characters, counting a surrogate pair as one', () => {
    const reason = (text: string) => ({ ...valid(), reportedForReason: { reason: text } });
    expect(pointers(reason('é'.repeat(5_000)))).toEqual([]);
    expect(pointers(reason('😀'.repeat(5_000)))).toEqual([]);
    expect(pointers(reason('x'.repeat(5_001)))).toEqual(['/reportedForReason/reason']);
    expect(pointers(reason('x'.repeat(250_000)))).toEqual(['/reportedForReason/reason']);
  });

  it('limits list lengths (400) and item sizes (413)', () => {
    const many = Array.from({ length: 4 }, (_, i) => ({ id: `p${i}`, typeId: 'post', data: {} }));
    expect(pointers({ ...valid(), reportedItemThread: many, reportedItemsInThread: [] })).toEqual(['/reportedItemThread']);
    const big = { ...valid(), additionalItems: [{ id: 'x', typeId: 'post', data: { text: 'x'.repeat(3000) } }] };
    const result = checkReport(big, catalog, limits);
    expect(result.ok ? [] : result.tooLarge.map((p) => p.pointer)).toEqual(['/additionalItems/0']);
  });
});
