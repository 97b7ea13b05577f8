import type { MediaResult, Signal, SignalContext } from '#warden/rules';
import type { BankIndex } from '../banks/bank-index.js';

type BankInfo = SignalContext['hashBanks'][number];

/** Below this PDQ quality a hash is unreliable (flat or tiny images) and does not match. */
export const MIN_PDQ_QUALITY = 50;
const DEFAULT_MAX_DISTANCE = 31;
/** Every PDQ hash is within 256 bits of any other. */
const PDQ_BITS = 256;

type Args = { readonly [key: string]: unknown };

async function mediaFor(input: unknown, ctx: SignalContext): Promise<Extract<MediaResult, { ok: true }>> {
  if (typeof input !== 'string') throw new Error('image signals take an image URL');
  const media = ctx.media?.(input);
  if (!media) throw new Error('image was not fetched');
  if (!media.ok) throw new Error(`image unavailable: ${media.reason}`);
  return media;
}

function selectedBanks(args: Args, ctx: SignalContext): readonly BankInfo[] {
  const banks = ctx.hashBanks;
  const wanted = args['bankIds'];
  return Array.isArray(wanted) ? banks.filter((b) => wanted.includes(b.id)) : banks;
}

/**
 * IMAGE_HASH_MATCH {bankIds?, maxDistance?}: true when the image's PDQ is within the bank's radius
 * of a banked hash (exact search), or its MD5 / SHA-256 is in an MD5 / SHA-256 bank.
 */
export function imageHashMatchSignal(index: BankIndex): Signal {
  const details = new Map<string, { bankId: string; hash: string; distance: number }>();
  return {
    type: 'IMAGE_HASH_MATCH',
    cost: 20,
    inputKinds: ['image'],
    async evaluate(input, args, ctx) {
      const media = await mediaFor(input, ctx);
      await index.ready();
      const banks = selectedBanks(args, ctx);
      const best = await bestMatch(media, banks, args, ctx.orgId, index);
      const key = detailKey(ctx.orgId, input, args);
      if (best) {
        if (details.size > 10_000) details.clear();
        details.set(key, best);
      }
      return best !== undefined;
    },
    explain(input, args, value, ctx) {
      return value === true ? details.get(detailKey(ctx.orgId, input, args)) : undefined;
    },
  };
}

/** IMAGE_HASH_DISTANCE {bankIds?}: the smallest PDQ distance to any banked hash. */
export function imageHashDistanceSignal(index: BankIndex): Signal {
  return {
    type: 'IMAGE_HASH_DISTANCE',
    cost: 30,
    inputKinds: ['image'],
    async evaluate(input, args, ctx) {
      const media = await mediaFor(input, ctx);
      if (media.quality < MIN_PDQ_QUALITY) throw new Error(`PDQ quality ${media.quality} is too low to compare`);
      await index.ready();
      const pdqBanks = selectedBanks(args, ctx)
        .filter((b) => b.hashType === 'PDQ')
        .map((b) => b.id);
      const closest = await index.nearestPdqInTurn(ctx.orgId, pdqBanks, media.pdq, PDQ_BITS);
      if (!closest) throw new Error('no banked PDQ hash to compare with');
      return closest.distance;
    },
  };
}

async function bestMatch(
  media: Extract<MediaResult, { ok: true }>,
  banks: readonly BankInfo[],
  args: Args,
  orgId: string,
  index: BankIndex,
): Promise<{ bankId: string; hash: string; distance: number } | undefined> {
  const override = typeof args['maxDistance'] === 'number' ? (args['maxDistance'] as number) : undefined;
  let best: { bankId: string; hash: string; distance: number } | undefined;
  for (const bank of banks) {
    if (bank.hashType === 'PDQ') {
      if (media.quality < MIN_PDQ_QUALITY) continue;
      const radius = override ?? bank.maxDistance ?? DEFAULT_MAX_DISTANCE;
      const m = await index.nearestPdqInTurn(orgId, [bank.id], media.pdq, radius);
      if (m && (!best || m.distance < best.distance)) best = m;
    } else {
      const hex = bank.hashType === 'MD5' ? media.md5 : media.sha256;
      if (index.exactMatches(orgId, [bank.id], hex).length > 0) return { bankId: bank.id, hash: hex, distance: 0 };
    }
  }
  return best;
}

/** Per organization: two organizations' rules may match one public image against banks of their own. */
const detailKey = (orgId: string, input: unknown, args: Args) => `${orgId}\u0000${String(input)}\u0000${JSON.stringify(args)}`;
