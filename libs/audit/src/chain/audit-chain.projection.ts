import type { Projection } from '#warden/eventstore';
import { contentDigest, genesisLink, nextLink, storedForm } from './audit-chain.js';

export const AUDIT_CHAIN_PROJECTION = 'audit-chain';
/** One document per event: its place in its organization's chain (id `<orgId>:<position>`). */
export const AUDIT_CHAIN_LINKS = 'audit_chain_links';
/** One document per organization: the head of its chain. */
export const AUDIT_CHAIN_HEADS = 'audit_chain_heads';

export interface ChainLinkDoc {
  readonly orgId: string;
  readonly seq: number;
  readonly position: number;
  readonly link: string;
}

export interface ChainHeadDoc extends ChainLinkDoc {
  /** The seq of the newest event that is not itself a checkpoint: what a new checkpoint must cover. */
  readonly activitySeq: number;
}

export const chainLinkId = (orgId: string, position: number) => `${orgId}:${position}`;

/**
 * Chains each organization's events in log order, as they are stored. The order is the store's:
 * one log with one position per event (SQLite's sequence, KurrentDB's $all commit position), so
 * every process appending to it, and every runner of this projection, agrees on it. The runner
 * commits a batch's links with its checkpoint by compare-and-set, so two workers never chain an
 * event twice, and a redelivered batch recomputes the very same links.
 */
export const auditChainProjection: Projection = {
  name: AUDIT_CHAIN_PROJECTION,
  log: 'as-stored',
  collections: [AUDIT_CHAIN_LINKS, AUDIT_CHAIN_HEADS],
  eventTypes: [],
  needsPersonalData: false,
  // The audit trail may fall behind during a burst: queues, actions and callbacks go first.
  background: true,
  async apply(event, ctx) {
    const orgId = event.metadata.orgId;
    // Every event Warden appends names its organization; anything else belongs to no chain.
    if (typeof orgId !== 'string' || orgId === '') return;
    const head = await ctx.get<ChainHeadDoc>(AUDIT_CHAIN_HEADS, orgId);
    const seq = (head?.seq ?? 0) + 1;
    const link = nextLink(head?.link ?? genesisLink(orgId), contentDigest(storedForm(event)));
    const activitySeq = event.type === 'AuditChainCheckpointed' ? (head?.activitySeq ?? 0) : seq;
    ctx.put(AUDIT_CHAIN_LINKS, chainLinkId(orgId, event.position), { orgId, seq, position: event.position, link } satisfies ChainLinkDoc);
    ctx.put(AUDIT_CHAIN_HEADS, orgId, { orgId, seq, position: event.position, link, activitySeq } satisfies ChainHeadDoc);
  },
};
