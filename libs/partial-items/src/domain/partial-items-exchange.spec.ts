import { describe, expect, it } from 'vitest';
import { partialItemsRequest, readAnswer } from './partial-items-exchange.js';

const asked = [
  { id: 'p1', typeId: 'post' },
  { id: 'u1', typeId: 'user' },
];

describe('the partial-items exchange', () => {
  it('asks with a versioned envelope naming the organization, the request and the items', () => {
    expect(partialItemsRequest('acme', 'r1', 'missing-fields', [{ id: 'p1', typeId: 'post', extra: 1 } as never])).toEqual({
      type: 'PARTIAL_ITEMS_REQUEST',
      version: 1,
      orgId: 'acme',
      requestId: 'r1',
      reason: 'missing-fields',
      items: [{ id: 'p1', typeId: 'post' }],
    });
  });

  it('reads items and notFound, each with where it was', () => {
    const read = readAnswer(JSON.stringify({ items: [{ id: 'p1', typeId: 'post', data: { text: 'x' } }], notFound: [{ id: 'u1', typeId: 'user' }] }), asked);
    expect(read).toEqual({
      ok: true,
      answer: {
        items: [{ index: 0, ref: { id: 'p1', typeId: 'post' }, item: { id: 'p1', typeId: 'post', data: { text: 'x' } } }],
        notFound: [{ id: 'u1', typeId: 'user' }],
      },
    });
  });

  it('refuses an answer beyond the limits its caller checks, before reading it', () => {
    const read = readAnswer(JSON.stringify({ items: [{ id: 'p1', typeId: 'post', data: { deep: [[[[1]]]] } }] }), asked, (parsed) =>
      JSON.stringify(parsed).includes('[[[[') ? { pointer: '/items/0/data/deep/0/0/0', detail: 'nested too deep' } : undefined,
    );
    expect(read).toEqual({ ok: false, problems: [{ pointer: '/items/0/data/deep/0/0/0', detail: 'nested too deep' }] });
  });

  it('refuses what is not JSON, unknown members, items not asked for or answered twice, with pointers', () => {
    expect(readAnswer('<html>', asked)).toEqual({ ok: false, problems: [{ pointer: '', detail: 'the answer is not JSON' }] });
    const read = readAnswer(
      JSON.stringify({
        items: [{ id: 'p9', typeId: 'post', data: {} }, { id: 'p1', typeId: 'post', data: {} }, 'x'],
        notFound: [{ id: 'p1', typeId: 'post' }],
        more: 1,
      }),
      asked,
    );
    expect(read).toEqual({
      ok: false,
      problems: [
        { pointer: '/more', detail: 'unknown member' },
        { pointer: '/items/0', detail: 'item post/p9 was not asked for' },
        { pointer: '/items/2', detail: 'expected an object' },
        { pointer: '/notFound/0', detail: 'item post/p1 is answered twice' },
      ],
    });
  });
});
