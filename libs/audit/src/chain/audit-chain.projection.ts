import type { Projection, ProjectionContext } from '#warden/eventstore';
import { chainV1, genesisLink, linkOf } from './audit-chain.js';

/**
 * The chain in format v2 (audit-chain.ts). A new name and new collections: on a data directory
 * chained under v1 it starts from the beginning of the log, and the v1 links stay where they were
 * (LEGACY_*), compared event by event while it catches up (docs/audit.md, "Older data directories").
 */
export const AUDIT_CHAIN_PROJECTION = 'audit-chain-v2';
/** One document per event: its place in its organization's chain (id `<orgId>:<position>`). */
export const AUDIT_CHAIN_LINKS = 'audit_chain_v2_links';
/** One document per organization: the head of its chain. */
export const AUDIT_CHAIN_HEADS = 'audit_chain_v2_heads';
/** The v1 chain's links, recorded before this release, never written again. */
export const LEGACY_CHAIN_LINKS = 'audit_chain_links';
/** The v1 chain's heads (one per organization, its last chained event), never written again. */
export const LEGACY_CHAIN_HEADS = 'audit_chain_heads';

export interface ChainLinkDoc {
  readonly orgId: string;
  readonly seq: number;
  readonly position: number;
  readonly link: string;
  /** When the event occurred (its metadata): where a time-bounded export starts (AuditExporter). */
  readonly occurredAt?: string;
}

export interface ChainHeadDoc extends ChainLinkDoc {
  /** The seq of the newest event that is not itself a checkpoint: what a new checkpoint must cover. */
  readonly activitySeq: number;
  /**
   * The v1 comparison: the v1 link recomputed from the log (while v1 links exist), how many events
   * had a v1 link to compare with, and how many differed (the first one's seq).
   */
  readonly legacy?: LegacyComparison;
}

// A type, not an interface: a read-model document must be JSON (an interface has no index signature).
export type LegacyComparison = {
  readonly link: string;
  readonly checked: number;
  readonly differs: number;
  readonly firstDiffers: number | null;
  /**
   * The position of the organization's last event v1 chained (its v1 head): every event of the
   * organization up to here has a v1 link, none after it. Absent in heads written before it was
   * recorded: those look every event up.
   */
  readonly through?: number;
};

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
  ownThread: true,
  // The audit trail may fall behind during a burst: queues, actions and callbacks go first.
  background: true,
  indexes: [
    { collection: AUDIT_CHAIN_LINKS, fields: ['orgId', 'seq'] },
    // An export's seeks by time (chain-links.ts) sort on both: each reads one entry of it.
    { collection: AUDIT_CHAIN_LINKS, fields: ['orgId', 'occurredAt', 'seq'] },
  ],
  // (orgId, occurredAt, seq) begins with it.
  retiredIndexes: [{ collection: AUDIT_CHAIN_LINKS, fields: ['orgId', 'occurredAt'] }],
  async apply(event, ctx) {
    const orgId = event.metadata.orgId;
    // Every event Warden appends names its organization; anything else belongs to no chain.
    if (typeof orgId !== 'string' || orgId === '') return;
    const head = await ctx.get<ChainHeadDoc>(AUDIT_CHAIN_HEADS, orgId);
    const seq = (head?.seq ?? 0) + 1;
    const link = linkOf(head?.link ?? genesisLink(orgId), event);
    const activitySeq = event.type === 'AuditChainCheckpointed' ? (head?.activitySeq ?? 0) : seq;
    const occurredAt = event.metadata.occurredAt;
    let legacy = head ? head.legacy : await legacyStart(ctx, orgId);
    // A v1 link recorded for this event before the upgrade: the log must still be what v1 chained,
    // or this rebuild would launder a change made to it. Looked up only within the prefix v1
    // chained: past it, and on a data directory v1 never chained, an event costs no read.
    if (legacy && (legacy.through === undefined || event.position <= legacy.through)) {
      const v1 = await ctx.get<ChainLinkDoc>(LEGACY_CHAIN_LINKS, chainLinkId(orgId, event.position));
      // Within the prefix every event has its v1 link: a missing one was removed, and counts as a difference.
      if (v1 || legacy.through !== undefined) {
        const differs = !v1 || chainV1.linkOf(legacy.link, event) !== v1.link;
        legacy = {
          // Continues from the recorded v1 link, so that one changed event counts once.
          link: v1?.link ?? chainV1.linkOf(legacy.link, event),
          checked: legacy.checked + 1,
          differs: legacy.differs + (differs ? 1 : 0),
          firstDiffers: legacy.firstDiffers ?? (differs ? seq : null),
          ...(legacy.through === undefined ? {} : { through: legacy.through }),
        };
      }
    }
    ctx.put(AUDIT_CHAIN_LINKS, chainLinkId(orgId, event.position), { orgId, seq, position: event.position, link, occurredAt } satisfies ChainLinkDoc);
    ctx.put(AUDIT_CHAIN_HEADS, orgId, { orgId, seq, position: event.position, link, activitySeq, ...(legacy ? { legacy } : {}) } satisfies ChainHeadDoc);
  },
};

/**
 * An organization's first event: whether v1 chained it before the upgrade (its v1 head), and how
 * far. Read once per organization, so that a fresh data directory never looks for v1 links.
 */
async function legacyStart(ctx: ProjectionContext, orgId: string): Promise<LegacyComparison | undefined> {
  const v1Head = await ctx.get<ChainLinkDoc>(LEGACY_CHAIN_HEADS, orgId);
  if (!v1Head) return undefined;
  return { link: chainV1.genesisLink(orgId), checked: 0, differs: 0, firstDiffers: null, through: v1Head.position };
}
