import { describe, expect, it } from 'vitest';
import { deciderSpecification } from '#warden/kernel';
import { type CheckpointAuditChain, auditCheckpointDecider } from './audit-checkpoint.decider.js';
import type { AuditCheckpointEvent } from '../domain/audit-checkpoint.events.js';

const now = '2026-03-01T10:00:00.000Z';
const command = (seq: number): CheckpointAuditChain => ({
  type: 'CheckpointAuditChain',
  head: { seq, position: seq * 10, link: `link-${seq}` },
  kid: 'k1',
  signature: `sig-${seq}`,
  now,
});
const checkpointed = (seq: number): AuditCheckpointEvent => ({
  type: 'AuditChainCheckpointed',
  data: { seq, position: seq * 10, link: `link-${seq}`, kid: 'k1', signature: `sig-${seq}`, signedAt: now, chain: 'warden-audit-chain/v2' },
});
/** A checkpoint recorded before chain v2: no `chain`, a v1 link. */
const checkpointedV1 = (seq: number): AuditCheckpointEvent => ({
  type: 'AuditChainCheckpointed',
  data: { seq, position: seq * 10, link: `v1-link-${seq}`, kid: 'k1', signature: `sig-${seq}`, signedAt: now },
});

const spec = deciderSpecification(auditCheckpointDecider);

describe('audit checkpoint decider', () => {
  it('records the first checkpoint of a chain head, naming the chain format', () => {
    spec
      .given([])
      .when(command(3))
      .then([checkpointed(3)]);
  });

  it('records a head further along than the last checkpoint', () => {
    spec
      .given([checkpointed(3)])
      .when(command(7))
      .then([checkpointed(7)]);
    expect(spec.given([checkpointed(3), checkpointed(7)]).state).toEqual({ seq: 7 });
  });

  it('records nothing for the same head again, nor for an older one (another worker signed first)', () => {
    spec
      .given([checkpointed(7)])
      .when(command(7))
      .thenNothing();
    spec
      .given([checkpointed(7)])
      .when(command(5))
      .thenNothing();
  });

  it('signs the head again in the new format after an upgrade: a v1 checkpoint of the same seq does not count', () => {
    spec
      .given([checkpointedV1(7)])
      .when(command(7))
      .then([checkpointed(7)]);
  });
});
