import { describe, expect, it } from 'vitest';
import type { SignalContext } from '#warden/rules';
import type { BankIndex } from '../banks/bank-index.js';
import { imageHashMatchSignal } from './image-hash.signals.js';

const URL_ = 'https://cdn.example/public.jpg';
const MD5 = 'd41d8cd98f00b204e9800998ecf8427e';

/** The index's answers at its narrowest seam: each organization's MD5 bank holds the image. */
const index = {
  ready: () => Promise.resolve(),
  nearestPdqInTurn: () => Promise.resolve(undefined),
  exactMatches: (orgId: string, bankIds: readonly string[], hex: string) => (hex === MD5 && bankIds.includes(`${orgId}-bank`) ? [hex] : []),
} as unknown as BankIndex;

const contextOf = (orgId: string) =>
  ({
    orgId,
    hashBanks: [{ id: `${orgId}-bank`, hashType: 'MD5', maxDistance: null }],
    media: () => ({ ok: true, url: URL_, pdq: '0'.repeat(64), quality: 100, md5: MD5, sha256: 'f'.repeat(64) }),
  }) as unknown as SignalContext;

describe('IMAGE_HASH_MATCH', () => {
  it("explains a match with the organization's own bank, when another organization matched the same image since", async () => {
    const signal = imageHashMatchSignal(index);
    const acme = contextOf('acme');
    const globex = contextOf('globex');
    expect(await signal.evaluate(URL_, {}, acme)).toBe(true);
    expect(await signal.evaluate(URL_, {}, globex)).toBe(true);
    expect(signal.explain?.(URL_, {}, true, acme)).toEqual({ bankId: 'acme-bank', hash: MD5, distance: 0 });
    expect(signal.explain?.(URL_, {}, true, globex)).toEqual({ bankId: 'globex-bank', hash: MD5, distance: 0 });
  });
});
