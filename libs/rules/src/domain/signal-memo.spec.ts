import { describe, expect, it } from 'vitest';
import { canonicalJson, SignalMemo } from './signal-memo.js';

function counter() {
  let calls = 0;
  const compute = async () => {
    calls += 1;
    return calls;
  };
  return { compute, calls: () => calls };
}

describe('SignalMemo', () => {
  it('reuses a result within the TTL and recomputes after it', async () => {
    let now = 1_000;
    const memo = new SignalMemo({ ttlMs: 30_000, now: () => now });
    const c = counter();
    expect(await memo.lookup('acme', 'TEXT_CONTAINS', { terms: ['a'] }, 'text', c.compute)).toBe(1);
    now += 29_999;
    expect(await memo.lookup('acme', 'TEXT_CONTAINS', { terms: ['a'] }, 'text', c.compute)).toBe(1);
    now += 1;
    expect(await memo.lookup('acme', 'TEXT_CONTAINS', { terms: ['a'] }, 'text', c.compute)).toBe(2);
    expect(c.calls()).toBe(2);
  });

  it('keys by argument and input content, not object identity or key order', async () => {
    const memo = new SignalMemo();
    const c = counter();
    await memo.lookup('acme', 'HTTP_SIGNAL', { url: 'u', timeoutMs: 5 }, { id: '1', typeId: 'user' }, c.compute);
    await memo.lookup('acme', 'HTTP_SIGNAL', { timeoutMs: 5, url: 'u' }, { typeId: 'user', id: '1' }, c.compute);
    expect(c.calls()).toBe(1);
  });

  it('never shares a result between organizations, signal types, arguments or inputs', async () => {
    const memo = new SignalMemo();
    const c = counter();
    const results = [
      await memo.lookup('acme', 'TEXT_CONTAINS', { terms: ['a'] }, 'text', c.compute),
      await memo.lookup('globex', 'TEXT_CONTAINS', { terms: ['a'] }, 'text', c.compute),
      await memo.lookup('acme', 'TEXT_BANK', { terms: ['a'] }, 'text', c.compute),
      await memo.lookup('acme', 'TEXT_CONTAINS', { terms: ['b'] }, 'text', c.compute),
      await memo.lookup('acme', 'TEXT_CONTAINS', { terms: ['a'] }, 'other text', c.compute),
      await memo.lookup('acme', 'TEXT_CONTAINS', { terms: ['a'] }, 1, c.compute),
      await memo.lookup('acme', 'TEXT_CONTAINS', { terms: ['a'] }, '1', c.compute),
      await memo.lookup('acme', 'TEXT_CONTAINS', { terms: ['a'] }, 'null', c.compute),
      await memo.lookup('acme', 'TEXT_CONTAINS', { terms: ['a'] }, null, c.compute),
    ];
    expect(results).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
  });

  it('keys long inputs by digest, still telling different texts apart', async () => {
    const memo = new SignalMemo();
    const c = counter();
    const long = 'x'.repeat(10_000);
    expect(await memo.lookup('acme', 'TEXT_CONTAINS', {}, long, c.compute)).toBe(1);
    expect(await memo.lookup('acme', 'TEXT_CONTAINS', {}, `${'x'.repeat(9_999)}y`, c.compute)).toBe(2);
    expect(await memo.lookup('acme', 'TEXT_CONTAINS', {}, 'x'.repeat(10_000), c.compute)).toBe(1);
  });

  it('shares one in-flight computation between concurrent lookups', async () => {
    const memo = new SignalMemo();
    let calls = 0;
    let release: (value: number) => void = () => undefined;
    const compute = () => {
      calls += 1;
      return new Promise<number>((resolve) => {
        release = resolve;
      });
    };
    const first = memo.lookup('acme', 'HTTP_SIGNAL', {}, 'x', compute);
    const second = memo.lookup('acme', 'HTTP_SIGNAL', {}, 'x', compute);
    release(7);
    expect(await Promise.all([first, second])).toEqual([7, 7]);
    expect(calls).toBe(1);
  });

  it('does not cache failures', async () => {
    const memo = new SignalMemo();
    let calls = 0;
    const failing = async () => {
      calls += 1;
      throw new Error('down');
    };
    await expect(memo.lookup('acme', 'HTTP_SIGNAL', {}, 'x', failing)).rejects.toThrow('down');
    await expect(memo.lookup('acme', 'HTTP_SIGNAL', {}, 'x', failing)).rejects.toThrow('down');
    expect(calls).toBe(2);
    expect(await memo.lookup('acme', 'HTTP_SIGNAL', {}, 'x', async () => 5)).toBe(5);
    expect(memo.size).toBe(1);
  });

  it('turns a synchronous throw into a rejection', async () => {
    const memo = new SignalMemo();
    const compute = (): Promise<number> => {
      throw new Error('sync');
    };
    await expect(memo.lookup('acme', 'HTTP_SIGNAL', {}, 'x', compute)).rejects.toThrow('sync');
    expect(memo.size).toBe(0);
  });

  it('starts the TTL when the result is known', async () => {
    let now = 0;
    const memo = new SignalMemo({ ttlMs: 100, now: () => now });
    let release: (value: number) => void = () => undefined;
    const slow = memo.lookup('acme', 'HTTP_SIGNAL', {}, 'x', () => new Promise<number>((resolve) => (release = resolve)));
    now = 500;
    release(1);
    await slow;
    await Promise.resolve();
    now = 550;
    expect(await memo.lookup('acme', 'HTTP_SIGNAL', {}, 'x', async () => 2)).toBe(1);
  });

  it('evicts the oldest entry beyond its bound', async () => {
    const memo = new SignalMemo({ maxEntries: 2 });
    const c = counter();
    await memo.lookup('acme', 'T', {}, 'a', c.compute);
    await memo.lookup('acme', 'T', {}, 'b', c.compute);
    await memo.lookup('acme', 'T', {}, 'c', c.compute);
    expect(memo.size).toBe(2);
    expect(await memo.lookup('acme', 'T', {}, 'c', c.compute)).toBe(3);
    expect(await memo.lookup('acme', 'T', {}, 'a', c.compute)).toBe(4);
  });
});

describe('SignalMemo, an object read by every rule', () => {
  it('serializes it once, however many lookups use it (the item, a long array)', async () => {
    const memo = new SignalMemo();
    let walks = 0;
    // canonicalJson lists an object's keys once per serialization: the proxy counts them.
    const item = new Proxy({ blob: [0, 0, 0], text: 'x' }, { ownKeys: (target) => (walks++, Reflect.ownKeys(target)) });
    for (let rule = 0; rule < 200; rule++) await memo.lookup('acme', 'USER_SCORE', { rule }, item, async () => rule);
    expect(walks).toBe(1);
    // Still a key of its value: an equal object elsewhere finds the same entry.
    expect(await memo.lookup('acme', 'USER_SCORE', { rule: 7 }, { text: 'x', blob: [0, 0, 0] }, async () => -1)).toBe(7);
  });
});

describe('canonicalJson', () => {
  it('sorts keys at every depth and drops undefined members', () => {
    expect(canonicalJson({ b: [{ d: 1, c: 2 }], a: 'x', u: undefined })).toBe('{"a":"x","b":[{"c":2,"d":1}]}');
  });
});
