import type { Decider } from '#warden/kernel';
import type { ChainHead } from './audit-chain.js';
import type { AuditCheckpointEvent } from './audit-checkpoint.events.js';

export interface CheckpointAuditChain {
  readonly type: 'CheckpointAuditChain';
  readonly head: ChainHead;
  readonly kid: string;
  readonly signature: string;
  readonly now: string;
}

export interface AuditCheckpointState {
  /** The seq of the last head signed; 0 before the first checkpoint. */
  readonly seq: number;
}

/**
 * Checkpoints only move forward: a head at or behind the last one signed (another worker signed
 * it first, or nothing happened since) records nothing.
 */
export const auditCheckpointDecider: Decider<CheckpointAuditChain, AuditCheckpointState, AuditCheckpointEvent> = {
  eventTypes: { AuditChainCheckpointed: true },
  initialState: { seq: 0 },

  decide(command, state) {
    if (command.head.seq <= state.seq) return [];
    const { seq, position, link } = command.head;
    return [{ type: 'AuditChainCheckpointed', data: { seq, position, link, kid: command.kid, signature: command.signature, signedAt: command.now } }];
  },

  evolve(state, event) {
    return { seq: Math.max(state.seq, event.data.seq) };
  },
};
