import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler, QueryBus } from '@nestjs/cqrs';
import { GetLiveCatalogQuery, type InputCatalog, namedTypeIds, rejectionOf } from '#warden/catalog';
import { userSubject } from '#warden/kernel';
import { WARDEN_CONFIG, type WardenConfig } from '#warden/platform';
import { AggregateStore } from '#warden/storage';
import { checkReport } from '../../domain/report-input.js';
import { reportDecider } from '../../domain/report.decider.js';
import { reportStream } from '../../domain/item.streams.js';
import { SubmitItemsCommand } from '../submit-items/submit-items.command.js';
import { SubmitItemsHandler } from '../submit-items/submit-items.handler.js';
import { SubmitReportCommand } from './submit-report.command.js';

/**
 * Checks the whole report first; then records the reported item (the item submission's own
 * strict check again, the same validator on the item types read here, and its append) and last
 * the report. A rejected report records nothing: every check runs before the first append. Both
 * are this module's: a report is what a customer submits, like an item; it is routed by the rules
 * engine and becomes a job in review (docs/architecture.md, "Main flows").
 */
@CommandHandler(SubmitReportCommand)
export class SubmitReportHandler implements ICommandHandler<SubmitReportCommand> {
  constructor(
    private readonly aggregates: AggregateStore,
    private readonly items: SubmitItemsHandler,
    private readonly queries: QueryBus,
    @Inject(WARDEN_CONFIG) private readonly config: WardenConfig,
  ) {}

  /**
   * The catalog as the report needs it, read once (item types and policies) and passed on to the
   * item submission's check; an item type applied moments ago is waited for.
   */
  private async catalog(orgId: string, body: Record<string, unknown>): Promise<InputCatalog> {
    const named = namedTypeIds(body['reporter'], body['reportedItem'], body['reportedItemThread'], body['additionalItems']);
    const read = await this.queries.execute(new GetLiveCatalogQuery(orgId, ['itemType', 'policy'], { itemType: named }));
    return { itemTypes: new Map(read.itemType.map((t) => [t.id, t] as const)), policyIds: new Set(read.policy.map((p) => p.id)) };
  }

  async execute(command: SubmitReportCommand): Promise<{ reportId: string }> {
    const { context, body } = command;
    const catalog = await this.catalog(context.orgId, body);
    const checked = checkReport(body, catalog, { maxItemBytes: this.config.maxItemBytes, maxItemsPerList: this.config.maxItemsPerRequest });
    if (!checked.ok) throw rejectionOf(checked);
    const input = checked.input;
    const [accepted] = await this.items.execute(
      new SubmitItemsCommand([body['reportedItem']], context, { source: 'report', pointer: '/reportedItem', single: true, itemTypes: catalog.itemTypes }),
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
      // A new id each report: its stream does not exist, so it is decided without reading it.
      { newStream: true },
    );
    return { reportId };
  }
}
