import type { Decider, Json } from '#warden/kernel';
import { AUDIT_CHAIN_FORMAT, type ChainHead } from './audit-chain.js';
import type { AuditCheckpointEvent } from '../domain/audit-checkpoint.events.js';

/** The chain format's number (`warden-audit-chain/v2` → 2). */
const CHAIN_FORMAT_VERSION = Number(AUDIT_CHAIN_FORMAT.slice(AUDIT_CHAIN_FORMAT.lastIndexOf('/v') + 2));
// A format named otherwise would give NaN, which no stored snapshot matches: snapshots silently never used.
if (!Number.isInteger(CHAIN_FORMAT_VERSION)) throw new Error(`the audit chain format ${AUDIT_CHAIN_FORMAT} does not end in /v<n>`);

export interface CheckpointAuditChain {
  readonly type: 'CheckpointAuditChain';
  readonly head: ChainHead;
  readonly kid: string;
  readonly signature: string;
  readonly now: string;
}

export interface AuditCheckpointState {
  /** The seq of the last head signed in the current chain format; 0 before the first checkpoint. */
  readonly seq: number;
}

/**
 * Checkpoints only move forward: a head at or behind the last one signed (another worker signed
 * it first, or nothing happened since) records nothing. A checkpoint of an older chain format
 * (before v2) does not count: the first pass after an upgrade signs the head in the new format.
 */
export const auditCheckpointDecider: Decider<CheckpointAuditChain, AuditCheckpointState, AuditCheckpointEvent> = {
  eventTypes: { AuditChainCheckpointed: true },
  initialState: { seq: 0 },
  // One checkpoint per batch of the log, forever: a process that starts reads the snapshot and the
  // checkpoints after it, not the organization's whole chain (docs/architecture.md, "Streams and
  // what a command costs"). The version is the chain format's: a seq counted in v2 means nothing in
  // a later format, whose first pass signs afresh.
  snapshot: {
    name: 'audit_chain',
    version: CHAIN_FORMAT_VERSION,
    encode: (state) => ({ seq: state.seq }),
    decode: (json: Json) => ({ seq: (json as { seq: number }).seq }),
  },

  decide(command, state) {
    if (command.head.seq <= state.seq) return [];
    const { seq, position, link } = command.head;
    return [
      {
        type: 'AuditChainCheckpointed',
        data: { seq, position, link, kid: command.kid, signature: command.signature, signedAt: command.now, chain: AUDIT_CHAIN_FORMAT },
      },
    ];
  },

  evolve(state, event) {
    return event.data.chain === AUDIT_CHAIN_FORMAT ? { seq: Math.max(state.seq, event.data.seq) } : state;
  },
};
