import { Inject, Injectable } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { SignWithOrganizationKeyQuery } from '#warden/callbacks';
import type { Clock } from '#warden/kernel';
import { CLOCK } from '#warden/platform';
import type { ReadStore } from '#warden/readstore';
import { AggregateStore, READ_STORE } from '#warden/storage';
import { checkpointMessage } from './audit-chain.js';
import { AUDIT_CHAIN_HEADS, type ChainHeadDoc } from './audit-chain.projection.js';
import { auditChainStream } from './audit-chain.streams.js';
import { auditCheckpointDecider } from './audit-checkpoint.decider.js';

/** Signs the chain heads that moved since their organization's last checkpoint. */
@Injectable()
export class AuditCheckpointer {
  constructor(
    @Inject(READ_STORE) private readonly readStore: ReadStore,
    private readonly aggregates: AggregateStore,
    private readonly queries: QueryBus,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  /** One pass over every organization's chain head; returns how many checkpoints it recorded. */
  async checkpointAll(): Promise<number> {
    let recorded = 0;
    for (const head of await this.readStore.find<ChainHeadDoc>(AUDIT_CHAIN_HEADS, {})) {
      if (await this.checkpoint(head)) recorded++;
    }
    return recorded;
  }

  /**
   * A head is signed only when something other than checkpoints happened since the last one
   * (`activitySeq`): the checkpoint event is itself chained, and must not call for another.
   */
  private async checkpoint(head: ChainHeadDoc): Promise<boolean> {
    const stream = auditChainStream(head.orgId);
    const state = await this.aggregates.state(stream, auditCheckpointDecider);
    if (head.activitySeq <= state.seq) return false;
    const signed = await this.queries.execute(new SignWithOrganizationKeyQuery(head.orgId, checkpointMessage(head.orgId, head)));
    const { events } = await this.aggregates.handle(
      stream,
      auditCheckpointDecider,
      { type: 'CheckpointAuditChain', head: { seq: head.seq, position: head.position, link: head.link }, ...signed, now: this.clock.now().toISOString() },
      { orgId: head.orgId, correlationId: `audit-checkpoint-${head.orgId}-${head.seq}`, causationId: null, actor: 'audit' },
    );
    return events.length > 0;
  }
}
