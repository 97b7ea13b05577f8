import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { AggregateStore } from '#warden/storage';
import { accessAuditDecider } from '../../domain/access-audit.decider.js';
import { accessAuditStream } from '../../domain/identity.streams.js';
import { ReadOnlySessions } from '../../read-only-sessions.js';
import { RecordInvestigationViewCommand } from './record-investigation-view.command.js';

/** Lookups of one organization contend for its audit trail: each lost race reads forward and records again. */
const AUDIT_CONTENTION_RETRIES = 100;

@CommandHandler(RecordInvestigationViewCommand)
export class RecordInvestigationViewHandler implements ICommandHandler<RecordInvestigationViewCommand> {
  constructor(
    private readonly aggregates: AggregateStore,
    private readonly readOnly: ReadOnlySessions,
  ) {}

  async execute(command: RecordInvestigationViewCommand): Promise<void> {
    // A read-only server (a replayed log, docs/audit.md, "Replay: the read models as they were")
    // appends nothing: an auditor's lookups there are not recorded in the copy that was checked.
    if (this.readOnly.active) return;
    const { kind, typeId, id } = command.viewed;
    await this.aggregates.handle(
      accessAuditStream(command.orgId),
      accessAuditDecider,
      { type: 'RecordInvestigationView', view: { userId: command.userId, viewed: { kind, typeId, id } } },
      command.context,
      { retries: AUDIT_CONTENTION_RETRIES },
    );
  }
}
