import { describe, expect, it } from 'vitest';
import { foldEvents } from '#warden/kernel';
import { type CheckpointAuditChain, auditCheckpointDecider } from './audit-checkpoint.decider.js';
import type { AuditCheckpointEvent } from './audit-checkpoint.events.js';

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
  data: { seq, position: seq * 10, link: `link-${seq}`, kid: 'k1', signature: `sig-${seq}`, signedAt: now },
});

/** Given events, when a command, then the events it decides. */
function given(events: AuditCheckpointEvent[]) {
  const state = foldEvents(auditCheckpointDecider, events);
  return { state, when: (c: CheckpointAuditChain) => auditCheckpointDecider.decide(c, state) };
}

describe('audit checkpoint decider', () => {
  it('records the first checkpoint of a chain head', () => {
    expect(given([]).when(command(3))).toEqual([checkpointed(3)]);
  });

  it('records a head further along than the last checkpoint', () => {
    expect(given([checkpointed(3)]).when(command(7))).toEqual([checkpointed(7)]);
    expect(given([checkpointed(3), checkpointed(7)]).state).toEqual({ seq: 7 });
  });

  it('records nothing for the same head again, nor for an older one (another worker signed first)', () => {
    expect(given([checkpointed(7)]).when(command(7))).toEqual([]);
    expect(given([checkpointed(7)]).when(command(5))).toEqual([]);
  });
});
