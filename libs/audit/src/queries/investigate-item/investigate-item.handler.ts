import { type IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import type { HistoryRef } from '../../history/item-history.projection.js';
import { seesChildSafety } from '#warden/review/contracts';
import { InvestigationReader, LIMITS } from '../../investigate/investigation-reader.js';
import {
  appealsOf,
  evaluationOf,
  itemOfStream,
  jobsOf,
  refOf,
  reportOf,
  sameRef,
  threadOf,
  timelineOf,
  versionOf,
} from '../../investigate/investigation-parts.js';
import { type InvestigatedItem, InvestigateItemQuery } from './investigate-item.query.js';

@QueryHandler(InvestigateItemQuery)
export class InvestigateItemHandler implements IQueryHandler<InvestigateItemQuery> {
  constructor(private readonly reader: InvestigationReader) {}

  async execute(query: InvestigateItemQuery): Promise<InvestigatedItem> {
    const { orgId } = query;
    const item = { typeId: query.typeId, id: query.id };
    const page = await this.reader.open(orgId, item, query.permissions, `No item ${item.typeId} ${item.id} in this organization`);
    const { frame, newest, newestClosed } = page;
    const [versions, evaluations, actions, reports, opened, decided, appeals, appealDecisions, timeline] = await Promise.all([
      newest('ItemSubmitted', LIMITS.versions + 1, LIMITS.versions, query.before),
      newest('ItemEvaluated', LIMITS.evaluations),
      newest('ActionCallbackRequested', LIMITS.actions),
      newestClosed('ReportSubmitted', LIMITS.reports),
      newest('ReviewJobOpened', LIMITS.jobs),
      newest('ReviewJobDecided', LIMITS.jobs),
      newest('AppealSubmitted', LIMITS.appeals),
      newest('AppealDecided', LIMITS.appeals),
      newestClosed(null, LIMITS.timeline + 1, LIMITS.timeline),
    ]);
    // Versions are the item's own submissions; a USER item's index also holds what the user created.
    const own = versions.events.filter((e) => sameRef(itemOfStream(e.streamName), item)).slice(0, LIMITS.versions);
    const newestVersion = own[0] ?? (await page.read(await this.reader.newest(orgId, item, 'ItemSubmitted', 1)))[0];
    const creator = refOf((newestVersion?.data as { creator?: unknown } | undefined)?.creator);
    const itemReports = await page.openReports(reports.events.filter((e) => sameRef(refOf(e.data['reportedItem']), item)));
    return {
      ...frame,
      item,
      creator,
      versions: {
        entries: own.map(versionOf),
        next: versions.docs.length > LIMITS.versions ? versions.docs[LIMITS.versions - 1]!.position : null,
      },
      evaluations: evaluations.events.map(evaluationOf),
      actions: await this.reader.actions(orgId, actions.events),
      reports: itemReports.map(reportOf),
      jobs: jobsOf(opened.events, decided.events),
      appeals: appealsOf(appeals.events, appealDecisions.events),
      thread: threadOf(itemReports),
      timeline: { entries: timelineOf(timeline.events), earlier: timeline.docs.length > LIMITS.timeline },
      creatorStanding: creator && !sameRef(creator, item) ? await this.standing(orgId, creator, query.permissions) : null,
    };
  }

  /** The creator's score and strikes (enforcement's queries) and the items they submitted last. */
  private async standing(
    orgId: string,
    user: HistoryRef,
    permissions: InvestigateItemQuery['permissions'],
  ): Promise<NonNullable<InvestigatedItem['creatorStanding']>> {
    const [standing, submitted] = await Promise.all([
      this.reader.standing(orgId, user, permissions),
      // The items a child-safety report recorded are not listed without VIEW_CHILD_SAFETY_DATA (marked in the index).
      this.reader.newest(orgId, user, 'ItemSubmitted', LIMITS.recentItems * 5, undefined, !seesChildSafety(permissions)),
    ]);
    const seen = new Set<string>();
    const recent = submitted.filter((doc) => {
      const ref = itemOfStream(doc.stream);
      if (!ref || sameRef(ref, user) || seen.has(doc.stream)) return false;
      seen.add(doc.stream);
      return true;
    });
    const events = await this.reader.read(recent.slice(0, LIMITS.recentItems), false, new Map());
    return {
      ...standing,
      recentItems: events.map((e) => ({ ...itemOfStream(e.streamName)!, submittedAt: e.metadata.occurredAt })),
    };
  }
}
