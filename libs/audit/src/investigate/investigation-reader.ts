import { Inject, Injectable } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { CHILD_SAFETY_QUEUE_ID, DEFAULT_WELLNESS_SETTINGS, GetCatalogSettingsQuery, GetLiveEntitiesQuery, type MediaLoading } from '#warden/catalog';
import { GetUserScoreQuery, GetUserStrikesQuery } from '#warden/enforcement';
import type { EventStore } from '#warden/eventstore';
import { auditPersonalDataAccess, type Permission } from '#warden/identity/contracts';
import { type Clock, idProblem, invalidInput, notFound, type RecordedEvent, streamCategory } from '#warden/kernel';
import { CLOCK } from '#warden/platform';
import type { ReadStore } from '#warden/readstore';
import { reviewJobStream, seesChildSafety } from '#warden/review/contracts';
import { REPORT_ROUTING_REACTOR, reportRoutingStream } from '#warden/rules/contracts';
import { EVENT_STORE, ProjectionHost, READ_STORE, STORAGE, type Storage } from '#warden/storage';
import { readHistoryEvent, readStoredStream } from '../history/history-events.js';
import {
  childSafetyCauseId,
  childSafetyEvent,
  ITEM_HISTORY,
  ITEM_HISTORY_CHILD_SAFETY,
  ITEM_HISTORY_PROJECTION,
  ITEM_HISTORY_STREAMS,
  type HistoryRef,
  type ItemHistoryDoc,
  type ItemHistoryStreamDoc,
} from '../history/item-history.projection.js';
import { type ActionView, actionOf, deliveryOf } from './investigation-parts.js';
import { callbackDeliveryStream } from './streams.js';

/** The category of review job streams (`review_job-<org>:<job>`): a job's claims, decisions … name only the job. */
const REVIEW_JOB_CATEGORY = streamCategory(reviewJobStream('org', 'job'));

/**
 * How long a plain report whose routing the index has not recorded is left out without
 * VIEW_CHILD_SAFETY_DATA (it may be on its way to the child-safety queue): the rules engine routes
 * a report seconds after it is recorded, and the index follows it, even behind a burst.
 */
export const ROUTING_WAIT_MS = 60 * 60 * 1000;

/** How many of each the pages show: the newest, so that a long history costs no more than a short one. */
export const LIMITS = { versions: 20, evaluations: 10, actions: 50, reports: 50, jobs: 50, appeals: 20, timeline: 50, strikes: 50, recentItems: 10 } as const;

/** A user's score and strikes, as the enforcement module answers them. */
export interface StandingView {
  user: HistoryRef;
  /** 1 (worst) to 5 (best). */
  score: number;
  strikes: {
    count: number;
    windowDays: number | null;
    /** Newest first: each application with the count after it (strikes over time). */
    /** Each `countAfter` null without VIEW_CHILD_SAFETY_DATA: the count after a strike listed would tell of one not listed before it. */
    entries: Array<{
      strikes: number;
      countAfter: number | null;
      actionId: string;
      policyIds: string[];
      item: HistoryRef;
      appliedAt: string;
      counting: boolean;
    }>;
  };
}

/** An item's or a user's page in the making: its frame, and its sections' newest entries with their events (each read once). */
export interface Investigation {
  readonly frame: InvestigationFrame;
  newest(type: string | null, limit: number, read?: number, before?: number): Promise<{ docs: ItemHistoryDoc[]; events: RecordedEvent[] }>;
  /** As `newest`, the events read as stored, personal fields null: for sections that show none of them (the timeline). */
  newestClosed(type: string | null, limit: number, read?: number, before?: number): Promise<{ docs: ItemHistoryDoc[]; events: RecordedEvent[] }>;
  /** Reads more entries' events through the same once-per-request cache. */
  read(docs: readonly ItemHistoryDoc[]): Promise<RecordedEvent[]>;
  /**
   * Reports (ReportSubmitted, as `newestClosed` read them, newest first) with their personal fields
   * opened, newest first, until what they carry (reason, thread, context items) passes
   * REPORT_CHARS_OPENED; the older ones stay closed (`opened` false). A report carries what its
   * reporter's platform sent, up to the request body limit: fifty of them opened for one page view
   * held the event loop for 0.2-0.7 s.
   */
  openReports(closed: readonly RecordedEvent[]): Promise<Array<{ event: RecordedEvent; opened: boolean }>>;
}

/** Characters of JSON (reasons, threads, context items) one Investigate page opens of its reports; the newest report is always opened. */
export const REPORT_CHARS_OPENED = 1024 * 1024;
/** Reports opened at once at most (small ones: openReports sizes its batches by what the budget still holds). */
const REPORTS_OPENED_AT_ONCE = 10;

/** What every Investigate page shows items with: their type's fields (for media), the wellness defaults. */
export interface InvestigationFrame {
  readonly personalData: boolean;
  readonly itemType: { id: string; name: string; kind: string; fields: Array<{ name: string; type: string; array: boolean; roles: string[] }> } | null;
  readonly wellness: { blur: number; greyscale: boolean; breakAfterItems: number; loadMedia: MediaLoading };
}

/**
 * The reads behind Investigate (docs/console.md, "Investigate"): the newest entries of the item
 * history index (`audit_item_history`) for an item or a user, of one event type or of all, each
 * query bounded by a limit, and the events they point at, read once per request. Nothing here
 * grows with the length of a history: every page asks the index for its newest few by the
 * `(orgId, typeId, itemId, type, position)` and `(orgId, typeId, itemId, position)` indexes, and
 * for a viewer without VIEW_CHILD_SAFETY_DATA by the same two with `childSafety` before the
 * position (unmarked entries only, however many marked ones come after them).
 */
@Injectable()
export class InvestigationReader {
  constructor(
    @Inject(READ_STORE) private readonly readStore: ReadStore,
    @Inject(EVENT_STORE) private readonly events: EventStore,
    @Inject(STORAGE) private readonly storage: Storage,
    @Inject(ProjectionHost) private readonly projections: ProjectionHost,
    private readonly queries: QueryBus,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  /**
   * Opens the page of an item or a user: its ids checked, 404 unless the index names it
   * (`missing`, the message), then its frame for the viewer's permissions.
   */
  async open(orgId: string, ref: HistoryRef, permissions: readonly Permission[], missing: string): Promise<Investigation> {
    InvestigationReader.checkIds({ typeId: ref.typeId, id: ref.id });
    await this.existsOr404(orgId, ref, missing, permissions);
    const frame = await this.frame(orgId, ref.typeId, permissions);
    const cache = new Map<number, Promise<RecordedEvent | undefined>>();
    const shown = this.childSafetyFilter(permissions, orgId);
    const read = async (docs: readonly ItemHistoryDoc[]) => shown(await this.read(shownEntries(docs, permissions), frame.personalData, cache));
    const closedCache = new Map<number, Promise<RecordedEvent | undefined>>();
    const readClosed = async (docs: readonly ItemHistoryDoc[]) => shown(await this.read(shownEntries(docs, permissions), false, closedCache));
    const docsRead = new Map<number, ItemHistoryDoc>();
    // Without VIEW_CHILD_SAFETY_DATA the sections ask the index for unmarked entries only: a page's
    // limits and its `earlier`/`next` say nothing of the child-safety entries left out.
    const unmarked = !seesChildSafety(permissions);
    return {
      frame,
      read,
      newest: async (type, limit, count = limit, before) => {
        const docs = await this.newest(orgId, ref, type, limit, before, unmarked);
        return { docs, events: await read(docs.slice(0, count)) };
      },
      newestClosed: async (type, limit, count = limit, before) => {
        const docs = await this.newest(orgId, ref, type, limit, before, unmarked);
        for (const doc of docs) docsRead.set(doc.position, doc);
        return { docs, events: await readClosed(docs.slice(0, count)) };
      },
      openReports: async (closed) => {
        const out: Array<{ event: RecordedEvent; opened: boolean }> = [];
        let chars = 0;
        let at = 0;
        while (at < closed.length) {
          if (!frame.personalData || chars > REPORT_CHARS_OPENED) {
            for (const event of closed.slice(at)) out.push({ event, opened: false });
            break;
          }
          // As many at once as the reports opened so far say the rest of the budget holds: one at a
          // first, then up to REPORTS_OPENED_AT_ONCE of small ones (their reads independent).
          const average = at === 0 ? Number.POSITIVE_INFINITY : Math.max(1, chars / at);
          const size = Math.min(REPORTS_OPENED_AT_ONCE, Math.max(1, Math.floor((REPORT_CHARS_OPENED - chars) / average)));
          const batch = closed.slice(at, at + size);
          const opened = await Promise.all(
            batch.map(async (event) => {
              const doc = docsRead.get(event.position);
              return doc ? (await read([doc]))[0] : undefined;
            }),
          );
          batch.forEach((event, i) => {
            const open = opened[i];
            if (open) chars += JSON.stringify([open.data['reason'] ?? null, open.data['thread'] ?? [], open.data['additionalItems'] ?? []]).length;
            out.push(open ? { event: open, opened: true } : { event, opened: false });
          });
          at += batch.length;
        }
        return out;
      },
    };
  }

  /**
   * 404 unless the index names the subject in this organization (another organization's ids are
   * simply not there). Submitted a moment ago: the index is brought up to the log before the 404.
   * Without VIEW_CHILD_SAFETY_DATA an entry not marked child-safety is needed: a subject named only
   * by child-safety events (the reporter of a csam report, say) answers as an unknown one.
   */
  async existsOr404(orgId: string, ref: HistoryRef, message: string, permissions: readonly Permission[]): Promise<void> {
    const unmarked = !seesChildSafety(permissions);
    if ((await this.newest(orgId, ref, null, 1, undefined, unmarked)).length > 0) return;
    await this.projections.catchUp(ITEM_HISTORY_PROJECTION);
    if ((await this.newest(orgId, ref, null, 1, undefined, unmarked)).length === 0) throw notFound(message);
  }

  /** The actions of these ActionCallbackRequested events, each with where its callback delivery stands. */
  actions(orgId: string, events: readonly RecordedEvent[]): Promise<ActionView[]> {
    return Promise.all(events.map(async (e) => actionOf(e, deliveryOf(await this.stream(callbackDeliveryStream(orgId, String(e.data['deliveryId'])))))));
  }

  /**
   * A user's score and strikes, as the enforcement module answers them. Without
   * VIEW_CHILD_SAFETY_DATA the strikes a child-safety decision applied (or a threshold it crossed)
   * are not listed, and no strike's count after it is (the count after a strike listed would say
   * when one not listed came); the count and the score are the user's, every strike in them.
   */
  async standing(orgId: string, user: HistoryRef, permissions: readonly Permission[]): Promise<StandingView> {
    const [score, strikes] = await Promise.all([
      this.queries.execute(new GetUserScoreQuery(orgId, user)),
      this.queries.execute(new GetUserStrikesQuery(orgId, user, LIMITS.strikes)),
    ]);
    const entries = await this.shownStrikes(orgId, user, strikes?.strikes ?? [], permissions);
    return {
      user,
      score,
      strikes: strikes ? { count: strikes.count, windowDays: strikes.windowDays, entries } : { count: 0, windowDays: null, entries: [] },
    };
  }

  /**
   * The strike applications of the user (as enforcement lists them) a viewer is shown: all with
   * VIEW_CHILD_SAFETY_DATA; without it not those a child-safety decision applied (or a threshold it
   * crossed), and none with its count after it (it would tell when one not shown came).
   */
  async shownStrikes<T extends StrikeListed>(
    orgId: string,
    user: HistoryRef,
    entries: readonly T[],
    permissions: readonly Permission[],
  ): Promise<Array<Omit<T, 'countAfter'> & { countAfter: number | null }>> {
    if (seesChildSafety(permissions) || entries.length === 0) return [...entries];
    const hidden = await this.childSafetyStrikes(orgId, user, Math.max(LIMITS.strikes, entries.length) * 2);
    return entries.filter((entry) => !hidden.some((applied) => sameApplication(applied, entry))).map((entry) => ({ ...entry, countAfter: null }));
  }

  /**
   * The user's newest strike applications that the index marks as child-safety ones (a decision of
   * that queue, or a threshold it crossed), as recorded: the strikes list is the enforcement
   * module's, which does not say what applied them. Read over twice the list's length (`limit`): the
   * user's index also holds strikes that name the user as the item struck.
   */
  private async childSafetyStrikes(orgId: string, user: HistoryRef, limit: number): Promise<Array<{ [key: string]: unknown }>> {
    const docs = (await this.newest(orgId, user, 'UserStrikesApplied', limit)).filter((doc) => doc.childSafety === true);
    return (await this.read(docs, false, new Map())).map((e) => e.data);
  }

  /** 400 with a pointer for an id Warden could never have stored (docs/api.md, "Errors"). */
  static checkIds(ids: { readonly [field: string]: string }): void {
    const problems = Object.entries(ids).flatMap(([field, value]) => {
      const problem = idProblem(value);
      return problem ? [{ title: 'Invalid id', pointer: `/${field}`, detail: problem }] : [];
    });
    if (problems.length > 0) throw invalidInput(...problems);
  }

  /** Personal fields as the audit histories open them, and for moderator managers as the job view does (VIEW_MRT). */
  async frame(orgId: string, typeId: string, permissions: readonly Permission[]): Promise<InvestigationFrame> {
    const [settings, types] = await Promise.all([
      this.queries.execute(new GetCatalogSettingsQuery(orgId, 'settings')),
      this.queries.execute(new GetLiveEntitiesQuery(orgId, 'itemType')),
    ]);
    const personalData = permissions.includes('VIEW_MRT') || auditPersonalDataAccess(permissions, settings?.auditorPersonalData === true).read;
    const type = types.find((t) => t.id === typeId);
    const wellness = settings?.wellness;
    return {
      personalData,
      itemType: type
        ? {
            id: type.id,
            name: type.name,
            kind: type.kind,
            fields: type.fields.map((f) => ({ name: f.name, type: f.type, array: f.array, roles: rolesOf(type.roles, f.name) })),
          }
        : null,
      wellness: {
        blur: wellness?.blur ?? DEFAULT_WELLNESS_SETTINGS.blur,
        greyscale: wellness?.greyscale ?? DEFAULT_WELLNESS_SETTINGS.greyscale,
        breakAfterItems: wellness?.breakAfterItems ?? DEFAULT_WELLNESS_SETTINGS.breakAfterItems,
        loadMedia: wellness?.loadMedia ?? DEFAULT_WELLNESS_SETTINGS.loadMedia,
      },
    };
  }

  /** The newest `limit` index entries of a subject (of one event type, or of all), newest first, before a log position. */
  newest(orgId: string, ref: HistoryRef, type: string | null, limit: number, before?: number, unmarked = false): Promise<ItemHistoryDoc[]> {
    const filter: Record<string, string | null | { lt: number }> = { orgId, typeId: ref.typeId, itemId: ref.id };
    if (type !== null) filter['type'] = type;
    // Entries without the child-safety mark (`{ f: null }` matches a missing field, on SQLite and Mongo alike).
    if (unmarked) filter['childSafety'] = null;
    if (before !== undefined) filter['position'] = { lt: before };
    return this.readStore.find<ItemHistoryDoc & Record<string, never>>(ITEM_HISTORY, filter, {
      sort: [{ field: 'position', direction: 'desc' }],
      limit,
    });
  }

  /** The events the entries point at, in the entries' order; one read each, shared within a request. */
  async read(docs: readonly ItemHistoryDoc[], personalData: boolean, cache: Map<number, Promise<RecordedEvent | undefined>>): Promise<RecordedEvent[]> {
    const events = await Promise.all(
      docs.map((doc) => {
        let event = cache.get(doc.position);
        if (!event) cache.set(doc.position, (event = readHistoryEvent(this.events, this.storage, doc, personalData)));
        return event;
      }),
    );
    return events.filter((e): e is RecordedEvent => e !== undefined);
  }

  /**
   * The events a viewer may see of the child-safety queue, as the queues page and the job view show
   * it: all of them with VIEW_CHILD_SAFETY_DATA; without it none that shows a child-safety job or
   * request (its opening, merges, claims, decisions, the child-safety report, a report flagged
   * `csam`, a report routed or an enqueue request sent there), so such a job is in no section of
   * the page, timeline included. What its decision caused (strikes, deliveries, a threshold's
   * action) the index marks (`shownEntries`); this reads the events themselves, for entries the
   * index wrote before it marked them. A job's later events name only the job: its queue is its
   * stream's first event's, and a job of another queue that a decision sent there (a child-safety
   * report, a move) is known by the index's record of its stream, both read once per request. A report not flagged `csam` that a routing rule
   * sent to the queue is left out when the index marked its routing (ReportRouted): one read by key
   * per report; until it is routed (routedToChildSafety), it is left out too, as it may be on its
   * way there.
   */
  childSafetyFilter(permissions: readonly Permission[], orgId: string): (events: RecordedEvent[]) => Promise<RecordedEvent[]> {
    if (seesChildSafety(permissions)) return async (events) => events;
    const jobs = new Map<string, Promise<boolean>>();
    // A job of the queue (its opening says so), or one a decision sent there (the index's record of its stream).
    const childSafetyJob = (stream: string) => {
      let hidden = jobs.get(stream);
      if (!hidden)
        jobs.set(
          stream,
          (hidden = Promise.all([this.first(stream), this.readStore.get<ItemHistoryStreamDoc & Record<string, never>>(ITEM_HISTORY_STREAMS, stream)]).then(
            ([opened, record]) => opened?.data['queueId'] === CHILD_SAFETY_QUEUE_ID || record?.childSafety === true,
          )),
        );
      return hidden;
    };
    const hidden = async (e: RecordedEvent) =>
      childSafetyEvent(e) ||
      (e.type === 'ReportSubmitted' && typeof e.data['reportId'] === 'string' && (await this.routedToChildSafety(orgId, e.data['reportId'], e))) ||
      (streamCategory(e.streamName) === REVIEW_JOB_CATEGORY && (await childSafetyJob(e.streamName)));
    return async (events) => {
      const hide = await Promise.all(events.map(hidden));
      return Promise.all(events.filter((_, i) => !hide[i]).map((e) => this.withoutChildSafetyCause(orgId, withoutCountAfter(e))));
    };
  }

  /**
   * A job of another queue that Warden closed because a child-safety decision actioned its item
   * (AUTOMATIC_CLOSE, ITEM_ACTIONED, caused by that decision or the platform's execution of its
   * action): shown closed by Warden without its reason, which would tell of an action the viewer
   * is not shown. One read by key per such close.
   */
  private async withoutChildSafetyCause(orgId: string, e: RecordedEvent): Promise<RecordedEvent> {
    const cause = e.metadata.causationId;
    if (e.type !== 'ReviewJobDecided' || e.data['type'] !== 'AUTOMATIC_CLOSE' || e.data['closeReason'] !== 'ITEM_ACTIONED' || !cause) return e;
    const caused = await this.readStore.get<{ orgId: string } & Record<string, never>>(ITEM_HISTORY_CHILD_SAFETY, childSafetyCauseId(orgId, cause));
    return caused ? { ...e, data: { ...e.data, closeReason: null } } : e;
  }

  /**
   * Whether the report may be in the child-safety queue: the index marked its routing as such
   * (ReportRouted to that queue opens its routing stream), or, the index not there yet, its
   * ReportRouted in the log says so. With no routing recorded: hidden while the rules engine's
   * router has not passed the report (it routes a report a moment after it is recorded; longer
   * while no worker runs), shown once it has (a release before 2026-11-30 routed reports without
   * recording ReportRouted). Where the router's checkpoint is not this store's to read (its
   * consumer group on KurrentDB), hidden for ROUTING_WAIT_MS after the report instead.
   */
  private async routedToChildSafety(orgId: string, reportId: string, report: RecordedEvent): Promise<boolean> {
    const routing = reportRoutingStream(orgId, reportId);
    const stream = await this.readStore.get<ItemHistoryStreamDoc & Record<string, never>>(ITEM_HISTORY_STREAMS, routing);
    if (stream) return stream.childSafety === true;
    const [routed] = await this.events.readStream(routing, { maxCount: 1 });
    if (routed) return routed.data['queueId'] === CHILD_SAFETY_QUEUE_ID;
    const router = await this.readStore.checkpoint(REPORT_ROUTING_REACTOR);
    if (router > 0) return router < report.position;
    return this.clock.now().getTime() - Date.parse(report.metadata.occurredAt) < ROUTING_WAIT_MS;
  }

  /**
   * Whether a callback delivery was requested by a child-safety decision or what it caused (the
   * index's record of the delivery's stream); null while the index has not seen the delivery.
   */
  async childSafetyDelivery(orgId: string, deliveryId: string): Promise<boolean | null> {
    const stream = await this.readStore.get<ItemHistoryStreamDoc & Record<string, never>>(ITEM_HISTORY_STREAMS, callbackDeliveryStream(orgId, deliveryId));
    return stream ? stream.childSafety === true : null;
  }

  /** A whole stream that holds nothing personal (a callback delivery's attempts), as stored, upcast. */
  stream(stream: string): Promise<RecordedEvent[]> {
    return readStoredStream(this.storage, stream);
  }

  /** The first event of a stream, personal fields closed: what a report, a job or a delivery is about. */
  async first(stream: string): Promise<RecordedEvent | undefined> {
    return (await readStoredStream(this.storage, stream, 1))[0];
  }
}

/** A strike's or a reversal's event without the user's count after it, as the strikes list shows it to a viewer without VIEW_CHILD_SAFETY_DATA. */
function withoutCountAfter(e: RecordedEvent): RecordedEvent {
  if ((e.type !== 'UserStrikesApplied' && e.type !== 'UserActionsReversed') || !('countAfter' in e.data)) return e;
  const { countAfter: _countAfter, ...data } = e.data;
  return { ...e, data };
}

/** Index entries a viewer may see: those of the child-safety queue only with VIEW_CHILD_SAFETY_DATA. */
export function shownEntries<T extends Pick<ItemHistoryDoc, 'childSafety'>>(docs: readonly T[], permissions: readonly Permission[]): readonly T[] {
  return seesChildSafety(permissions) ? docs : docs.filter((doc) => doc.childSafety !== true);
}

/** A strike application as enforcement lists it. */
type StrikeListed = { strikes: number; countAfter: number; actionId: string; item: HistoryRef; appliedAt: string };

/** A strike application as enforcement lists it, and as its UserStrikesApplied recorded it: the same one. */
function sameApplication(applied: { [key: string]: unknown }, entry: StrikeListed): boolean {
  const item = applied['item'] as Partial<HistoryRef> | undefined;
  return (
    applied['appliedAt'] === entry.appliedAt &&
    (applied['action'] as { id?: unknown } | undefined)?.id === entry.actionId &&
    item?.id === entry.item.id &&
    item.typeId === entry.item.typeId &&
    applied['strikes'] === entry.strikes &&
    applied['countAfter'] === entry.countAfter
  );
}

/** The roles a field plays in its type (creator, createdAt, thread …), as the job view names them. */
function rolesOf(roles: { readonly [role: string]: unknown } | undefined, field: string): string[] {
  return Object.entries(roles ?? {}).flatMap(([role, name]) => (name === field ? [role] : []));
}
