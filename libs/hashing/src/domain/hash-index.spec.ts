import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { rng } from '../../../../test/support/random.js';
import { PdqIndex, type PdqMatch } from './hash-index.js';
import { hammingDistance, pdqFromHex, pdqToHex } from './pdq.js';

/** The PDQ reference vectors, kept in the repository (test/fixtures/pdq/README.md says where from). */
const TESTDATA = fileURLToPath(new URL('../../../../test/fixtures/pdq/', import.meta.url));

function randomHash(r: () => number): Uint8Array {
  return Uint8Array.from({ length: 32 }, () => Math.floor(r() * 256));
}

function flipBits(hash: Uint8Array, bits: Iterable<number>): Uint8Array {
  const out = hash.slice();
  for (const b of bits) out[b >> 3]! ^= 1 << (b & 7);
  return out;
}

/** `count` distinct bit positions out of 256. */
function randomBits(r: () => number, count: number): number[] {
  const all = Array.from({ length: 256 }, (_, i) => i);
  for (let i = 0; i < count; i++) {
    const j = i + Math.floor(r() * (256 - i));
    [all[i], all[j]] = [all[j]!, all[i]!];
  }
  return all.slice(0, count);
}

function bruteForce(bank: readonly Uint8Array[], query: Uint8Array, maxDistance: number): PdqMatch[] {
  const out: PdqMatch[] = [];
  bank.forEach((h, ref) => {
    const distance = hammingDistance(h, query);
    if (distance <= maxDistance) out.push({ ref, distance });
  });
  return out.sort((a, b) => a.distance - b.distance || a.ref - b.ref);
}

describe('PdqIndex on needles x haystack', () => {
  const lines = (name: string) =>
    readFileSync(`${TESTDATA}data/reg-test-input/${name}`, 'utf8')
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l !== '');

  it('finds exactly the pairs of the brute-force oracle at every radius up to 63', () => {
    const needles = lines('needles.txt');
    const haystack = lines('haystack.txt');
    expect([needles.length, haystack.length]).toEqual([100, 1350]);
    // Oracle rows: needle_idx,haystack_idx,distance,needle_hash,haystack_hash; every pair <= 63.
    const oracle = readFileSync(`${TESTDATA}expected/needles-vs-haystack-brute-force.csv`, 'utf8')
      .split('\n')
      .filter((l) => /^\d/.test(l))
      .map((l) => l.split(',').slice(0, 3).map(Number) as [number, number, number]);
    expect(oracle.filter(([, , d]) => d <= 31)).toHaveLength(250);

    const index = PdqIndex.fromEntries(haystack.map((hash, ref) => ({ hash, ref })));
    expect(index.size).toBe(1350);
    for (const radius of [0, 10, 15, 16, 20, 31, 32, 63]) {
      const found: string[] = [];
      needles.forEach((needle, n) => {
        for (const m of index.searchHex(needle, radius)) found.push(`${n},${m.ref},${m.distance}`);
      });
      const expected = oracle.filter(([, , d]) => d <= radius).map((row) => row.join(','));
      expect(found.sort(), `radius ${radius}`).toEqual(expected.sort());
    }
  });
});

describe('PdqIndex', () => {
  it('equals brute force on 50,000 random hashes with near-duplicates planted at every distance 0-31', () => {
    const r = rng(42);
    const bank = Array.from({ length: 50_000 }, () => randomHash(r));
    // Near-duplicates in the bank too, so that queries have several answers at mixed distances.
    for (let i = 0; i < 2000; i++) bank.push(flipBits(bank[Math.floor(r() * 50_000)]!, randomBits(r, Math.floor(r() * 32))));
    const index = PdqIndex.fromEntries(bank.map((hash, ref) => ({ hash, ref })));

    let planted = 0;
    for (let distance = 0; distance <= 31; distance++) {
      for (let t = 0; t < 6; t++) {
        const target = Math.floor(r() * bank.length);
        const query = flipBits(bank[target]!, randomBits(r, distance));
        const got = index.search(query, 31);
        expect(got).toEqual(bruteForce(bank, query, 31));
        expect(got).toContainEqual({ ref: target, distance });
        expect(index.search(query, distance)).toEqual(bruteForce(bank, query, distance));
        planted++;
      }
    }
    expect(planted).toBe(192);
    for (let t = 0; t < 20; t++) {
      const query = randomHash(r);
      expect(index.search(query, 31)).toEqual(bruteForce(bank, query, 31));
    }
  });

  it('finds the pigeonhole edge cases: every chunk 1 bit off, or all but one chunk 2 bits off', () => {
    const r = rng(9);
    const bank = Array.from({ length: 5000 }, () => randomHash(r));
    const index = PdqIndex.fromEntries(bank.map((hash, ref) => ({ hash, ref })));
    const base = bank[1234]!;
    // Chunk c covers bits 16c..16c+15 of the byte array's bit numbering used by flipBits.
    const oneEach = Array.from({ length: 16 }, (_, c) => 16 * c + 5);
    expect(index.search(flipBits(base, oneEach), 16)).toContainEqual({ ref: 1234, distance: 16 });
    expect(index.search(flipBits(base, oneEach), 15).some((m) => m.ref === 1234)).toBe(false);
    const fifteenOnes = oneEach.slice(1);
    expect(index.search(flipBits(base, fifteenOnes), 15)).toContainEqual({ ref: 1234, distance: 15 });
    const twoInFifteen = [3, ...Array.from({ length: 15 }, (_, c) => [16 * (c + 1) + 2, 16 * (c + 1) + 11]).flat()];
    expect(index.search(flipBits(base, twoInFifteen), 31)).toContainEqual({ ref: 1234, distance: 31 });
    expect(index.search(flipBits(base, twoInFifteen), 30).some((m) => m.ref === 1234)).toBe(false);
    const twoEverywhere = Array.from({ length: 16 }, (_, c) => [16 * c + 2, 16 * c + 11]).flat();
    expect(index.search(flipBits(base, twoEverywhere), 32)).toContainEqual({ ref: 1234, distance: 32 });
  });

  it('answers radii above 31 by scanning, exactly', () => {
    const r = rng(3);
    const bank = Array.from({ length: 3000 }, () => randomHash(r));
    const index = PdqIndex.fromEntries(bank.map((hash, ref) => ({ hash, ref })));
    for (const distance of [32, 40, 64]) {
      const query = flipBits(bank[77]!, randomBits(r, distance));
      expect(index.search(query, distance)).toEqual(bruteForce(bank, query, distance));
      expect(index.search(query, distance)).toContainEqual({ ref: 77, distance });
    }
    expect(index.search(bank[0]!, 256)).toHaveLength(3000);
    expect(index.search(bank[0]!, -1)).toEqual([]);
  });

  it('takes adds between searches, and finds hashes added since the last build', () => {
    const r = rng(5);
    const index = new PdqIndex({ rebuildAfter: 700 });
    const bank: Uint8Array[] = [];
    for (let round = 0; round < 12; round++) {
      for (let i = 0; i < 450; i++) {
        const h = i % 10 === 0 && bank.length > 0 ? flipBits(bank[Math.floor(r() * bank.length)]!, randomBits(r, 9)) : randomHash(r);
        index.add(h, bank.length);
        bank.push(h);
      }
      const query = flipBits(bank[bank.length - 1 - Math.floor(r() * 900)]!, randomBits(r, 20));
      expect(index.search(query, 31)).toEqual(bruteForce(bank, query, 31));
    }
    expect(index.size).toBe(5400);
  });

  it('nearest() is the first of the brute-force answer at every radius, across tables, tail, removals and ties', () => {
    const r = rng(17);
    const index = new PdqIndex({ rebuildAfter: 64 });
    const bank: Uint8Array[] = [];
    const removed = new Set<number>();
    const add = (h: Uint8Array) => {
      index.add(h, bank.length);
      bank.push(h);
    };
    for (let i = 0; i < 6000; i++) add(randomHash(r));
    // Duplicates under later refs: a tie goes to the smaller ref.
    for (let i = 0; i < 50; i++) add(bank[i]!.slice());
    for (let round = 0; round < 8; round++) {
      // Adds between queries leave a tail that is scanned, not indexed; removals mark holes.
      for (let i = 0; i < 300; i++) add(i % 3 === 0 ? flipBits(bank[Math.floor(r() * bank.length)]!, randomBits(r, 1 + Math.floor(r() * 40))) : randomHash(r));
      for (let i = 0; i < 40; i++) {
        const ref = Math.floor(r() * bank.length);
        if (!removed.has(ref) && index.remove(ref) > 0) removed.add(ref);
      }
      const refs = bank.map((_, ref) => ref).filter((ref) => !removed.has(ref));
      const oracle = refs.map((ref) => bank[ref]!);
      for (const radius of [0, 9, 16, 31, 32, 47, 64, 100, 256]) {
        const target = refs[Math.floor(r() * refs.length)]!;
        const query = round % 2 === 0 ? flipBits(bank[target]!, randomBits(r, Math.min(radius, 1 + Math.floor(r() * 60)))) : randomHash(r);
        const [first] = bruteForce(oracle, query, radius).map((m) => ({ ref: refs[m.ref]!, distance: m.distance }));
        expect(index.nearest(query, radius), `round ${round}, radius ${radius}`).toEqual(first);
        expect(index.nearest(query, radius)).toEqual(index.search(query, radius)[0]);
      }
      expect(index.nearest(bank[10]!, 256)).toEqual(removed.has(10) ? index.search(bank[10]!, 256)[0] : { ref: 10, distance: 0 });
    }
    expect(index.nearest(bank[0]!, -1)).toBeUndefined();
    expect(new PdqIndex().nearest(bank[0]!, 256)).toBeUndefined();
    expect(() => index.nearest(bank[0]!, 40.5)).toThrow(RangeError);
  });

  it('nearest() gives a tie to the smaller ref, wherever each was added', () => {
    const r = rng(23);
    const hashes = Array.from({ length: 3000 }, () => randomHash(r));
    // Refs that fall as positions rise: the later copy of a hash has the smaller ref.
    const index = PdqIndex.fromEntries(hashes.map((hash, i) => ({ hash, ref: 10_000 - i })));
    const copy = hashes[100]!;
    index.add(copy.slice(), 5); // in the tail
    const near = flipBits(copy, [3]);
    for (const radius of [0, 1, 31, 40, 256]) expect(index.nearest(copy, radius), `radius ${radius}`).toEqual({ ref: 5, distance: 0 });
    expect(index.nearest(near, 31)).toEqual({ ref: 5, distance: 1 });
    index.build(); // both in the tables now
    expect(index.nearest(copy, 31)).toEqual({ ref: 5, distance: 0 });
    expect(index.nearest(near, 256)).toEqual({ ref: 5, distance: 1 });
    expect(index.nearest(near, 256)).toEqual(index.search(near, 256)[0]);
  });

  it('removes by ref, rebuilds from a list, and keeps refs beyond 32 bits', () => {
    const r = rng(8);
    const bank = Array.from({ length: 3000 }, () => randomHash(r));
    const index = PdqIndex.fromEntries(
      bank.map((hash, ref) => ({ hash, ref })),
      { rebuildAfter: 100 },
    );
    const twin = flipBits(bank[10]!, [1, 2, 3]);
    index.add(twin, 10);
    expect(index.search(bank[10]!, 31).map((m) => m.distance)).toEqual([0, 3]);
    expect(index.remove(10)).toBe(2);
    expect(index.search(bank[10]!, 31)).toEqual([]);
    expect(index.size).toBe(2999);

    expect(index.removeWhere((ref) => ref % 2 === 1)).toBe(1500);
    expect(index.size).toBe(1499);
    for (const ref of [11, 12, 2999]) {
      expect(index.search(bank[ref]!, 0)).toEqual(ref % 2 ? [] : [{ ref, distance: 0 }]);
    }
    // Enough removals make the next search compact the storage; results must not change.
    expect(index.removeWhere((ref) => ref < 1500)).toBe(749);
    expect(index.search(bank[2000]!, 31)).toEqual([{ ref: 2000, distance: 0 }]);
    expect(index.search(bank[1000]!, 31)).toEqual([]);
    expect(index.size).toBe(750);

    const big = 2 ** 40 + 7;
    index.rebuild([
      { hash: pdqToHex(bank[5]!), ref: big },
      { hash: bank[6]!, ref: 1 },
    ]);
    expect(index.size).toBe(2);
    expect(index.search(bank[5]!, 31)).toEqual([{ ref: big, distance: 0 }]);
    expect(index.search(bank[6]!, 31)).toEqual([{ ref: 1, distance: 0 }]);
    expect(() => index.add(bank[7]!, -1)).toThrow(RangeError);
    expect(() => index.add(bank[7]!, 1.5)).toThrow(RangeError);
    expect(() => index.add(new Uint8Array(31), 1)).toThrow(RangeError);
    expect(() => index.addHex('xyz', 1)).toThrow(RangeError);
  });

  it('holds one million hashes in under 100 bytes each', () => {
    const r = rng(1);
    const index = new PdqIndex();
    const h = new Uint8Array(32);
    const view = new DataView(h.buffer);
    for (let i = 0; i < 1_000_000; i++) {
      for (let w = 0; w < 8; w++) view.setUint32(w * 4, Math.floor(r() * 2 ** 32));
      index.add(h, i);
    }
    const probe = h.slice();
    index.build();
    expect(index.size).toBe(1_000_000);
    expect(index.bytesPerHash).toBeLessThan(100);
    expect(index.search(flipBits(probe, [0, 100, 200]), 31)).toEqual([{ ref: 999_999, distance: 3 }]);
    expect(pdqFromHex(pdqToHex(probe))).toEqual(probe);
  }, 60_000);
});
