import { type IQueryHandler, QueryBus, QueryHandler } from '@nestjs/cqrs';
import { GetUserScoreQuery, GetUserStrikesQuery } from '#warden/enforcement';
import { notFound, type RecordedEvent } from '#warden/kernel';
import { ProjectionHost } from '#warden/storage';
import { callbackDeliveryStream } from '../../investigate/streams.js';
import { type HistoryRef, ITEM_HISTORY_PROJECTION } from '../../history/item-history.projection.js';
import { InvestigationReader } from '../../investigate/investigation-reader.js';
import {
  actionOf,
  appealsOf,
  deliveryOf,
  evaluationOf,
  itemOfStream,
  jobsOf,
  reportOf,
  threadOf,
  timelineOf,
  versionOf,
} from '../../investigate/investigation-parts.js';
import { type InvestigatedItem, InvestigateItemQuery, type StandingView } from './investigate-item.query.js';

/** How many of each the page shows: the newest, so that a long history costs no more than a short one. */
export const LIMITS = { versions: 20, evaluations: 10, actions: 50, reports: 50, jobs: 50, appeals: 20, timeline: 50, strikes: 50, recentItems: 10 } as const;

const same = (a: HistoryRef | null, b: HistoryRef) => a !== null && a.id === b.id && a.typeId === b.typeId;

@QueryHandler(InvestigateItemQuery)
export class InvestigateItemHandler implements IQueryHandler<InvestigateItemQuery> {
  constructor(
    private readonly reader: InvestigationReader,
    private readonly projections: ProjectionHost,
    private readonly queries: QueryBus,
  ) {}

  async execute(query: InvestigateItemQuery): Promise<InvestigatedItem> {
    InvestigationReader.checkIds({ typeId: query.typeId, id: query.id });
    const { orgId } = query;
    const item = { typeId: query.typeId, id: query.id };
    await existsOr404(this.reader, this.projections, orgId, item, `No item ${item.typeId} ${item.id} in this organization`);
    const frame = await this.reader.frame(orgId, item.typeId, query.permissions);
    const cache = new Map<number, Promise<RecordedEvent | undefined>>();
    const newest = async (type: string | null, limit: number, read = limit, before?: number) => {
      const docs = await this.reader.newest(orgId, item, type, limit, before);
      return { docs, events: await this.reader.read(docs.slice(0, read), frame.personalData, cache) };
    };
    const [versions, evaluations, actions, reports, opened, decided, appeals, appealDecisions, timeline] = await Promise.all([
      newest('ItemSubmitted', LIMITS.versions + 1, LIMITS.versions, query.before),
      newest('ItemEvaluated', LIMITS.evaluations),
      newest('ActionCallbackRequested', LIMITS.actions),
      newest('ReportSubmitted', LIMITS.reports),
      newest('ReviewJobOpened', LIMITS.jobs),
      newest('ReviewJobDecided', LIMITS.jobs),
      newest('AppealSubmitted', LIMITS.appeals),
      newest('AppealDecided', LIMITS.appeals),
      newest(null, LIMITS.timeline + 1, LIMITS.timeline),
    ]);
    // Versions are the item's own submissions; a USER item's index also holds what the user created.
    const own = versions.events.filter((e) => same(itemOfStream(e.streamName), item)).slice(0, LIMITS.versions);
    const newestVersion = own[0] ?? (await this.reader.read(await this.reader.newest(orgId, item, 'ItemSubmitted', 1), frame.personalData, cache))[0];
    const creator = refOf((newestVersion?.data as { creator?: unknown } | undefined)?.creator);
    const deliveries = await Promise.all(
      actions.events.map(async (e) => deliveryOf(await this.reader.stream(callbackDeliveryStream(orgId, String(e.data['deliveryId']))))),
    );
    const itemReports = reports.events.filter((e) => same(refOf(e.data['reportedItem']), item));
    return {
      ...frame,
      item,
      creator,
      versions: {
        entries: own.map(versionOf),
        next: versions.docs.length > LIMITS.versions ? versions.docs[LIMITS.versions - 1]!.position : null,
      },
      evaluations: evaluations.events.map(evaluationOf),
      actions: actions.events.map((e, i) => actionOf(e, deliveries[i] ?? null)),
      reports: itemReports.map(reportOf),
      jobs: jobsOf(opened.events, decided.events),
      appeals: appealsOf(appeals.events, appealDecisions.events),
      thread: threadOf(itemReports),
      timeline: { entries: timelineOf(timeline.events), earlier: timeline.docs.length > LIMITS.timeline },
      creatorStanding: creator && !same(creator, item) ? await this.standing(orgId, creator) : null,
    };
  }

  /** The creator's score and strikes (enforcement's queries) and the items they submitted last. */
  private async standing(orgId: string, user: HistoryRef): Promise<NonNullable<InvestigatedItem['creatorStanding']>> {
    const [standing, submitted] = await Promise.all([
      standingOf(this.queries, orgId, user),
      this.reader.newest(orgId, user, 'ItemSubmitted', LIMITS.recentItems * 5),
    ]);
    const seen = new Set<string>();
    const recent = submitted.filter((doc) => {
      const ref = itemOfStream(doc.stream);
      if (!ref || same(ref, user) || seen.has(doc.stream)) return false;
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

/** A user's score and strikes, as the enforcement module answers them. */
export async function standingOf(queries: QueryBus, orgId: string, user: HistoryRef): Promise<StandingView> {
  const [score, strikes] = await Promise.all([
    queries.execute(new GetUserScoreQuery(orgId, user)),
    queries.execute(new GetUserStrikesQuery(orgId, user, LIMITS.strikes)),
  ]);
  return {
    user,
    score,
    strikes: strikes ? { count: strikes.count, windowDays: strikes.windowDays, entries: strikes.strikes } : { count: 0, windowDays: null, entries: [] },
  };
}

export function refOf(value: unknown): HistoryRef | null {
  if (typeof value !== 'object' || value === null) return null;
  const { id, typeId } = value as { id?: unknown; typeId?: unknown };
  return typeof id === 'string' && typeof typeId === 'string' ? { typeId, id } : null;
}

/**
 * 404 unless the index names the subject in this organization (another organization's ids are
 * simply not there). Submitted a moment ago: the index is brought up to the log before the 404.
 */
export async function existsOr404(reader: InvestigationReader, projections: ProjectionHost, orgId: string, ref: HistoryRef, message: string): Promise<void> {
  if ((await reader.newest(orgId, ref, null, 1)).length > 0) return;
  await projections.catchUp(ITEM_HISTORY_PROJECTION);
  if ((await reader.newest(orgId, ref, null, 1)).length === 0) throw notFound(message);
}
