import { describe, expect, it } from 'vitest';
import type { FetchedItem } from '#warden/rules';
import { FetchedItemsCache } from './fetched-items-cache.js';

const item = (typeId: string, id: string, data: Record<string, unknown> = {}): FetchedItem => ({
  id,
  typeId,
  data,
  typeVersion: null,
  typeSchemaVariant: 'original',
  version: 1,
});
const MINUTE = 60_000;

describe('the cache of fetched whole items and GDPR erasures', () => {
  it('forgets the items sealed under an erased subject and its own user item, nothing else', () => {
    const cache = new FetchedItemsCache(100);
    const mark = cache.mark();
    cache.keep(mark, 'acme', item('post', 'p1', { text: 'by ann' }), 'user:ann', MINUTE);
    cache.keep(mark, 'acme', item('post', 'p2', { text: 'by ann too' }), 'user:ann', MINUTE);
    cache.keep(mark, 'acme', item('user', 'ann', { name: 'Ann' }), 'user:ann', MINUTE);
    cache.keep(mark, 'acme', item('post', 'p3', { text: 'by bob' }), 'user:bob', MINUTE);
    // The same ids in another organization are another user's.
    cache.keep(mark, 'other', item('post', 'p1', { text: "other's ann" }), 'user:ann', MINUTE);

    expect(cache.forget('acme', 'user:ann')).toBe(3);
    expect(cache.get('acme', { typeId: 'post', id: 'p1' })).toBeUndefined();
    expect(cache.get('acme', { typeId: 'post', id: 'p2' })).toBeUndefined();
    expect(cache.get('acme', { typeId: 'user', id: 'ann' })).toBeUndefined();
    expect(cache.get('acme', { typeId: 'post', id: 'p3' })?.data).toEqual({ text: 'by bob' });
    expect(cache.get('other', { typeId: 'post', id: 'p1' })?.data).toEqual({ text: "other's ann" });
    // The completion comes after the request: nothing left to drop.
    expect(cache.forget('acme', 'user:ann')).toBe(0);
  });

  it('forgets everything when erasures were lost track of, and keeps no answer to a request sent before', () => {
    const cache = new FetchedItemsCache(100);
    const before = cache.mark();
    cache.keep(before, 'acme', item('post', 'p1'), 'user:ann', MINUTE);
    cache.keep(before, 'other', item('post', 'p2'), 'user:bob', MINUTE);
    expect(cache.forgetAll()).toBe(2);
    expect(cache.get('acme', { typeId: 'post', id: 'p1' })).toBeUndefined();
    expect(cache.get('other', { typeId: 'post', id: 'p2' })).toBeUndefined();
    // Sent before the loss, answered after it: the erasure it may have crossed is not seen yet.
    expect(cache.keep(before, 'acme', item('post', 'p3'), 'user:carl', MINUTE)).toBe(false);
    expect(cache.get('acme', { typeId: 'post', id: 'p3' })).toBeUndefined();
    expect(cache.keep(cache.mark(), 'acme', item('post', 'p3'), 'user:carl', MINUTE)).toBe(true);
    expect(cache.get('acme', { typeId: 'post', id: 'p3' })).toBeDefined();
  });

  it("drops the user's own item even when it was kept under another subject", () => {
    const cache = new FetchedItemsCache(100);
    cache.keep(cache.mark(), 'acme', item('user', 'ann', { name: 'Ann' }), 'user:someone-else', MINUTE);
    expect(cache.forget('acme', 'user:ann')).toBe(1);
    expect(cache.get('acme', { typeId: 'user', id: 'ann' })).toBeUndefined();
  });

  it('does not keep an answer that an erasure of its subject overtook', () => {
    const cache = new FetchedItemsCache(100);
    // Sent before the erasure was seen, answered after it.
    const sent = cache.mark();
    cache.forget('acme', 'user:ann');
    expect(cache.keep(sent, 'acme', item('post', 'p1'), 'user:ann', MINUTE)).toBe(false);
    expect(cache.get('acme', { typeId: 'post', id: 'p1' })).toBeUndefined();
    // Another subject's answer from the same moment is kept.
    expect(cache.keep(sent, 'acme', item('post', 'p3'), 'user:bob', MINUTE)).toBe(true);
    // A request sent after the erasure (the user's data arriving anew, under a new key) is kept.
    expect(cache.keep(cache.mark(), 'acme', item('post', 'p1'), 'user:ann', MINUTE)).toBe(true);
    expect(cache.get('acme', { typeId: 'post', id: 'p1' })).toBeDefined();
  });
});
