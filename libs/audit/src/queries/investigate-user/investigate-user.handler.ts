import { type IQueryHandler, QueryBus, QueryHandler } from '@nestjs/cqrs';
import type { RecordedEvent } from '#warden/kernel';
import { ProjectionHost } from '#warden/storage';
import type { HistoryRef } from '../../history/item-history.projection.js';
import { InvestigationReader } from '../../investigate/investigation-reader.js';
import { actionOf, appealsOf, deliveryOf, itemOfStream, reportOf, timelineOf, versionOf } from '../../investigate/investigation-parts.js';
import { callbackDeliveryStream } from '../../investigate/streams.js';
import { existsOr404, LIMITS, refOf, standingOf } from '../investigate-item/investigate-item.handler.js';
import { type InvestigatedUser, InvestigateUserQuery } from './investigate-user.query.js';

/** The items page size: the newest, never all of a user's items (a user may have created 100,000). */
export const USER_ITEMS_PAGE = 50;

const same = (a: HistoryRef | null, b: HistoryRef) => a !== null && a.id === b.id && a.typeId === b.typeId;

@QueryHandler(InvestigateUserQuery)
export class InvestigateUserHandler implements IQueryHandler<InvestigateUserQuery> {
  constructor(
    private readonly reader: InvestigationReader,
    private readonly projections: ProjectionHost,
    private readonly queries: QueryBus,
  ) {}

  async execute(query: InvestigateUserQuery): Promise<InvestigatedUser> {
    InvestigationReader.checkIds({ typeId: query.typeId, id: query.id });
    const { orgId } = query;
    const user = { typeId: query.typeId, id: query.id };
    await existsOr404(this.reader, this.projections, orgId, user, `No user ${user.typeId} ${user.id} in this organization`);
    const frame = await this.reader.frame(orgId, user.typeId, query.permissions);
    const cache = new Map<number, Promise<RecordedEvent | undefined>>();
    const newest = async (type: string | null, limit: number, read = limit, before?: number) => {
      const docs = await this.reader.newest(orgId, user, type, limit, before);
      return { docs, events: await this.reader.read(docs.slice(0, read), frame.personalData, cache) };
    };
    const [submitted, actions, reports, appeals, appealDecisions, timeline, erasures, standing] = await Promise.all([
      newest('ItemSubmitted', USER_ITEMS_PAGE + 1, 0, query.before),
      newest('ActionCallbackRequested', LIMITS.actions),
      newest('ReportSubmitted', LIMITS.reports),
      newest('AppealSubmitted', LIMITS.appeals),
      newest('AppealDecided', LIMITS.appeals),
      newest(null, LIMITS.timeline + 1, LIMITS.timeline),
      this.reader.newest(orgId, user, 'GdprDeletionCompleted', 1),
      standingOf(this.queries, orgId, user),
    ]);
    // The items list needs only where and when: read as stored, no personal field opened.
    const listed = await this.reader.read(submitted.docs.slice(0, USER_ITEMS_PAGE), false, new Map());
    const ownDoc =
      submitted.docs.find((d) => same(itemOfStream(d.stream), user)) ??
      (await this.reader.newest(orgId, user, 'ItemSubmitted', 20)).find((d) => same(itemOfStream(d.stream), user));
    const [profileEvent] = ownDoc ? await this.reader.read([ownDoc], frame.personalData, cache) : [];
    const seen = new Set<string>();
    const items = listed.flatMap((e) => {
      const ref = itemOfStream(e.streamName);
      if (!ref || same(ref, user) || seen.has(e.streamName)) return [];
      seen.add(e.streamName);
      return [{ ...ref, submittedAt: e.metadata.occurredAt, version: e.revision }];
    });
    const deliveries = await Promise.all(
      actions.events.map(async (e) => deliveryOf(await this.reader.stream(callbackDeliveryStream(orgId, String(e.data['deliveryId']))))),
    );
    return {
      ...frame,
      ...standing,
      erased: erasures.length > 0,
      profile: profileEvent ? versionOf(profileEvent) : null,
      items: { entries: items, next: submitted.docs.length > USER_ITEMS_PAGE ? submitted.docs[USER_ITEMS_PAGE - 1]!.position : null },
      actions: actions.events.map((e, i) => actionOf(e, deliveries[i] ?? null)),
      reportsFiled: reports.events.filter((e) => same(refOf(e.data['reporter']), user)).map(reportOf),
      appeals: appealsOf(appeals.events, appealDecisions.events),
      timeline: { entries: timelineOf(timeline.events), earlier: timeline.docs.length > LIMITS.timeline },
    };
  }
}
