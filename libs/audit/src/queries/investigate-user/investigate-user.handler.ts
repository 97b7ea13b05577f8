import { type IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { InvestigationReader, LIMITS } from '../../investigate/investigation-reader.js';
import { appealsOf, itemOfStream, refOf, reportOf, sameRef, timelineOf, versionOf } from '../../investigate/investigation-parts.js';
import { type InvestigatedUser, InvestigateUserQuery } from './investigate-user.query.js';

/** The items page size: the newest, never all of a user's items (a user may have created 100,000). */
export const USER_ITEMS_PAGE = 50;

@QueryHandler(InvestigateUserQuery)
export class InvestigateUserHandler implements IQueryHandler<InvestigateUserQuery> {
  constructor(private readonly reader: InvestigationReader) {}

  async execute(query: InvestigateUserQuery): Promise<InvestigatedUser> {
    const { orgId } = query;
    const user = { typeId: query.typeId, id: query.id };
    const page = await this.reader.open(orgId, user, query.permissions, `No user ${user.typeId} ${user.id} in this organization`);
    const { frame, newest, newestClosed } = page;
    const [submitted, actions, reports, appeals, appealDecisions, timeline, erasures, standing] = await Promise.all([
      newest('ItemSubmitted', USER_ITEMS_PAGE + 1, 0, query.before),
      newest('ActionCallbackRequested', LIMITS.actions),
      newestClosed('ReportSubmitted', LIMITS.reports),
      newest('AppealSubmitted', LIMITS.appeals),
      newest('AppealDecided', LIMITS.appeals),
      newestClosed(null, LIMITS.timeline + 1, LIMITS.timeline),
      this.reader.newest(orgId, user, 'GdprDeletionCompleted', 1),
      this.reader.standing(orgId, user, query.permissions),
    ]);
    // The items list needs only where and when: read as stored, no personal field opened.
    const listed = await this.reader.read(submitted.docs.slice(0, USER_ITEMS_PAGE), false, new Map());
    const ownDoc =
      submitted.docs.find((d) => sameRef(itemOfStream(d.stream), user)) ??
      (await this.reader.newest(orgId, user, 'ItemSubmitted', 20)).find((d) => sameRef(itemOfStream(d.stream), user));
    const [profileEvent] = ownDoc ? await page.read([ownDoc]) : [];
    const seen = new Set<string>();
    const items = listed.flatMap((e) => {
      const ref = itemOfStream(e.streamName);
      if (!ref || sameRef(ref, user) || seen.has(e.streamName)) return [];
      seen.add(e.streamName);
      return [{ ...ref, submittedAt: e.metadata.occurredAt, version: e.revision }];
    });
    return {
      ...frame,
      ...standing,
      erased: erasures.length > 0,
      profile: profileEvent ? versionOf(profileEvent) : null,
      items: { entries: items, next: submitted.docs.length > USER_ITEMS_PAGE ? submitted.docs[USER_ITEMS_PAGE - 1]!.position : null },
      actions: await this.reader.actions(orgId, actions.events),
      reportsFiled: (await page.openReports(reports.events.filter((e) => sameRef(refOf(e.data['reporter']), user)))).map(reportOf),
      appeals: appealsOf(appeals.events, appealDecisions.events),
      timeline: { entries: timelineOf(timeline.events), earlier: timeline.docs.length > LIMITS.timeline },
    };
  }
}
