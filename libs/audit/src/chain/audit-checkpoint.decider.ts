import type { Decider } from '#warden/kernel';
import { AUDIT_CHAIN_FORMAT, type ChainHead } from './audit-chain.js';
import type { AuditCheckpointEvent } from '../domain/audit-checkpoint.events.js';

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
