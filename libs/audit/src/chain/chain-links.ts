import type { ReadStore } from '#warden/readstore';
import { AUDIT_CHAIN_LINKS, type ChainLinkDoc } from './audit-chain.projection.js';

/**
 * Seeks into an organization's chain by time, through the links' index on (orgId, occurredAt, seq):
 * both keys of the sort are in it, so a seek reads one index entry. With `seq` outside it, a store
 * that sorts what the range matches (MongoDB keeps the top one of every match in memory) read every
 * link from `from` to the end, or from the start to `to`: an export's cost grew with the history.
 */

/** The first link at or after `from` (in time, then chain order). */
export async function firstLinkFrom(readStore: ReadStore, orgId: string, from: Date): Promise<ChainLinkDoc | undefined> {
  const [found] = await readStore.find<ChainLinkDoc>(
    AUDIT_CHAIN_LINKS,
    { orgId, occurredAt: { gte: from.toISOString() } },
    {
      sort: [
        { field: 'occurredAt', direction: 'asc' },
        { field: 'seq', direction: 'asc' },
      ],
      limit: 1,
    },
  );
  return found;
}

/** The last link at or before `to` (its millisecond included: times are written by toISOString). */
export async function lastLinkThrough(readStore: ReadStore, orgId: string, to: Date): Promise<ChainLinkDoc | undefined> {
  const [found] = await readStore.find<ChainLinkDoc>(
    AUDIT_CHAIN_LINKS,
    // At or before `to`: below the next millisecond (the port's ranges are lt/gte).
    { orgId, occurredAt: { lt: new Date(to.getTime() + 1).toISOString() } },
    {
      sort: [
        { field: 'occurredAt', direction: 'desc' },
        { field: 'seq', direction: 'desc' },
      ],
      limit: 1,
    },
  );
  return found;
}
