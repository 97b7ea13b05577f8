import { type IQueryHandler, QueryBus, QueryHandler } from '@nestjs/cqrs';
import { GetLiveEntitiesQuery } from '#warden/catalog';
import { invalidField, notFound } from '#warden/kernel';
import { reportStream } from '#warden/ingestion/contracts';
import { reviewJobStream, seesChildSafety } from '#warden/review/contracts';
import { InvestigationReader } from '../../investigate/investigation-reader.js';
import { callbackDeliveryStream } from '../../investigate/streams.js';
import { refOf } from '../../investigate/investigation-parts.js';
import { FindInvestigationQuery, type InvestigationTarget } from './find-investigation.query.js';

const NAMES = { report: 'report', job: 'review job', delivery: 'callback delivery' } as const;

@QueryHandler(FindInvestigationQuery)
export class FindInvestigationHandler implements IQueryHandler<FindInvestigationQuery> {
  constructor(
    private readonly reader: InvestigationReader,
    private readonly queries: QueryBus,
  ) {}

  async execute({ orgId, kind, id, typeId, permissions }: FindInvestigationQuery): Promise<InvestigationTarget> {
    InvestigationReader.checkIds({ id });
    if (kind === 'item' || kind === 'user') {
      if (typeId === undefined) throw invalidField('/typeId', `A ${kind} is looked up by its type and id`);
      InvestigationReader.checkIds({ typeId });
      const ref = { typeId, id };
      await this.reader.existsOr404(orgId, ref, `No ${kind} ${typeId} ${id} in this organization`, permissions);
      return { kind: (await this.isUserType(orgId, typeId)) ? 'user' : 'item', ...ref };
    }
    // A report, a job or a delivery is about the item its first event names; its stream is the organization's, so another's id finds nothing.
    const stream = kind === 'report' ? reportStream(orgId, id) : kind === 'job' ? reviewJobStream(orgId, id) : callbackDeliveryStream(orgId, id);
    const found = await this.reader.first(stream);
    // A child-safety job or report, or a delivery of what such a job decided, is not shown to exist
    // without VIEW_CHILD_SAFETY_DATA: the same 404 as an unknown id.
    const [first] =
      found && !(kind === 'delivery' && (await this.childSafetyDelivery(orgId, id, permissions)))
        ? await this.reader.childSafetyFilter(permissions, orgId)([found])
        : [];
    const item = first ? refOf(first.data['reportedItem'] ?? first.data['item']) : null;
    if (!item) throw notFound(`No ${NAMES[kind]} ${id} in this organization`);
    return { kind: (await this.isUserType(orgId, item.typeId)) ? 'user' : 'item', ...item };
  }

  /**
   * A delivery the index marks as requested by a child-safety decision or what it caused, for a
   * viewer without VIEW_CHILD_SAFETY_DATA. One the index has not seen yet (requested a moment ago)
   * counts as one until it has, as in the job view (FindChildSafetyDeliveriesHandler): nothing is
   * shown that the index has not judged.
   */
  private async childSafetyDelivery(orgId: string, deliveryId: string, permissions: FindInvestigationQuery['permissions']): Promise<boolean> {
    if (seesChildSafety(permissions)) return false;
    return (await this.reader.childSafetyDelivery(orgId, deliveryId)) !== false;
  }

  private async isUserType(orgId: string, typeId: string): Promise<boolean> {
    const types = await this.queries.execute(new GetLiveEntitiesQuery(orgId, 'itemType'));
    return types.find((t) => t.id === typeId)?.kind === 'USER';
  }
}
