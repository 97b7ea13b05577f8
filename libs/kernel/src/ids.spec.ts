import { describe, expect, it } from 'vitest';
import { deterministicId, pooledRandomBytes, randomIds } from './ids.js';

describe('pooledRandomBytes', () => {
  it('hands out fresh bytes of the size asked, never the same bytes twice, across pool refills', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 2000; i++) {
      const bytes = pooledRandomBytes(12);
      expect(bytes).toHaveLength(12);
      seen.add(bytes.toString('hex'));
    }
    expect(seen.size).toBe(2000);
    expect(pooledRandomBytes(32)).toHaveLength(32);
    expect(pooledRandomBytes(4096)).toHaveLength(4096);
  });

  it('gives each caller its own copy: changing one result changes no other', () => {
    const a = pooledRandomBytes(16);
    const b = pooledRandomBytes(16);
    const before = Buffer.from(b);
    a.fill(0);
    expect(b.equals(before)).toBe(true);
  });
});

describe('deterministicId', () => {
  it('derives the same UUID from the same parts, and different ones when parts merely concatenate alike', () => {
    expect(deterministicId('a', 'bc')).toBe(deterministicId('a', 'bc'));
    expect(deterministicId('a', 'bc')).not.toBe(deterministicId('ab', 'c'));
    expect(deterministicId('x')).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });

  it('never changes between releases: a reactor re-run after an upgrade must find the ids it appended before', () => {
    // Pinned from the release that first derived them (sha256 over `<length>:<part>` per part).
    expect(deterministicId('a', 'b')).toBe('facdde7a-bf1e-8c5b-b012-73ab2e282f79');
    expect(deterministicId('review-enqueue', 'job', 'é漢')).toBe('cc82f90e-2f3d-8b4c-8a69-13b74f9e9566');
  });
});

describe('randomIds.uuid', () => {
  it('gives unique version-7 UUIDs whose order follows the clock, so the log indexes new event ids at its end', async () => {
    const first = randomIds.uuid();
    const start = Date.now();
    while (Date.now() === start) await new Promise((r) => setImmediate(r));
    const later = Array.from({ length: 1000 }, () => randomIds.uuid());
    expect(first).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(new Set([first, ...later]).size).toBe(1001);
    expect(later.every((id) => id > first)).toBe(true);
  });
});
