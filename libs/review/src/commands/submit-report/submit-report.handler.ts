import { Inject } from '@nestjs/common';
import { CommandBus, CommandHandler, type ICommandHandler, QueryBus } from '@nestjs/cqrs';
import { GetLiveEntitiesQuery, type ItemTypeDefinition } from '#warden/catalog';
import { SubmitItemsCommand } from '#warden/ingestion';
import { invalidInput, partTooLarge, userSubject } from '#warden/kernel';
import { WARDEN_CONFIG, type WardenConfig } from '#warden/platform';
import { AggregateStore, ProjectionHost } from '#warden/storage';
import { checkReport, type ReportCatalog } from '../../domain/report-input.js';
import { reportDecider } from '../../domain/report.decider.js';
import { reportStream } from '../../domain/review.streams.js';
import { SubmitReportCommand } from './submit-report.command.js';

/** Item type ids a report names: the reporter's, the reported item's, the context items'. */
function namedTypeIds(body: Record<string, unknown>): string[] {
  const typeIdOf = (v: unknown) => (typeof v === 'object' && v !== null ? (v as { typeId?: unknown }).typeId : undefined);
  const lists = [body['reportedItemThread'], body['additionalItems']].flatMap((l) => (Array.isArray(l) ? l : []));
  return [body['reporter'], body['reportedItem'], ...lists].map(typeIdOf).filter((t): t is string => typeof t === 'string');
}

/**
 * Checks the whole report first; then records the reported item through ingestion (its own
 * strict check again, the same validator, and its append) and last the report. A rejected report
 * records nothing: every check runs before the first append.
 */
@CommandHandler(SubmitReportCommand)
export class SubmitReportHandler implements ICommandHandler<SubmitReportCommand> {
  constructor(
    private readonly aggregates: AggregateStore,
    private readonly commands: CommandBus,
    private readonly queries: QueryBus,
    @Inject(WARDEN_CONFIG) private readonly config: WardenConfig,
    @Inject(ProjectionHost) private readonly projections: ProjectionHost,
  ) {}

  private async catalog(orgId: string): Promise<ReportCatalog> {
    const [types, policies] = await Promise.all([
      this.queries.execute(new GetLiveEntitiesQuery(orgId, 'itemType')),
      this.queries.execute(new GetLiveEntitiesQuery(orgId, 'policy')),
    ]);
    return { itemTypes: new Map(types.map((t: ItemTypeDefinition) => [t.id, t] as const)), policyIds: new Set(policies.map((p) => p.id)) };
  }

  async execute(command: SubmitReportCommand): Promise<{ reportId: string }> {
    const { context, body } = command;
    let catalog = await this.catalog(context.orgId);
    // As ingestion does: an item type applied moments ago may not be projected yet.
    if (namedTypeIds(body).some((t) => !catalog.itemTypes.has(t))) {
      await this.projections.catchUp('catalog');
      catalog = await this.catalog(context.orgId);
    }
    const checked = checkReport(body, catalog, { maxItemBytes: this.config.maxItemBytes, maxItemsPerList: this.config.maxItemsPerRequest });
    if (!checked.ok) {
      if (checked.tooLarge.length > 0) throw partTooLarge(...checked.tooLarge);
      throw invalidInput(...checked.problems);
    }
    const input = checked.input;
    const [accepted] = await this.commands.execute(
      new SubmitItemsCommand([body['reportedItem']], context, { source: 'report', pointer: '/reportedItem', single: true }),
    );
    const reportId = this.aggregates.newId('rpt_');
    await this.aggregates.handle(
      reportStream(context.orgId, reportId),
      reportDecider,
      {
        type: 'SubmitReport',
        report: {
          reportId,
          reporter: input.reporter,
          reportedAt: input.reportedAt,
          reportedItem: { id: input.reportedItem.id, typeId: input.reportedItem.typeId, version: accepted!.version },
          policyId: input.policyId,
          csam: input.csam,
          reason: input.reason,
          thread: input.thread,
          reportedInThread: input.reportedInThread,
          additionalItems: input.additionalItems,
          subject: userSubject(input.reporter),
        },
      },
      context,
    );
    return { reportId };
  }
}
