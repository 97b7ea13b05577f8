import { Inject } from '@nestjs/common';
import { type IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { type Clock, invalidInput } from '#warden/kernel';
import { CLOCK } from '#warden/platform';
import type { ReadStore } from '#warden/readstore';
import { ProjectionHost, READ_STORE } from '#warden/storage';
import { checkReportWindow, type ReportWindow, windowDays } from '../../domain/report-window.js';
import { APPEAL_OUTCOMES_PROJECTION } from '../../projections/appeal-outcomes.projection.js';
import {
  APPEAL_OUTCOME_BUCKETS,
  APPEAL_OUTCOME_DAYS,
  type AppealOutcomeBucketDoc,
  type AppealOutcomeDayDoc,
  bucketRanges,
  type OutcomeCounts,
  type OutcomeEntry,
} from '../../projections/appeal-outcomes.read-model.js';
import { type AppealCountsView, type AppealReportRow, type AppealsReport, AppealsReportQuery } from './appeals-report.query.js';

type Tally = OutcomeEntry & OutcomeCounts;

const ZERO: OutcomeCounts = { received: 0, decided: 0, accepted: 0, rejected: 0 };

const view = (c: OutcomeCounts): AppealCountsView => ({ ...pick(c), overturnRate: c.decided > 0 ? c.accepted / c.decided : null });
const pick = (c: OutcomeCounts): OutcomeCounts => ({ received: c.received, decided: c.decided, accepted: c.accepted, rejected: c.rejected });

const DAY_MS = 86_400_000;

/**
 * Whole days of the window from the per-day counts (one indexed read each); the partial days at
 * its ends from the counts of the hours, minutes, seconds, 10 ms and milliseconds that cover the
 * part inside the window exactly (bucketRanges: at most nine indexed reads of at most 99 documents
 * each, however many appeals the day had). The projection is caught up first: an appeal decided a
 * moment ago is counted.
 */
@QueryHandler(AppealsReportQuery)
export class AppealsReportHandler implements IQueryHandler<AppealsReportQuery> {
  constructor(
    @Inject(READ_STORE) private readonly readStore: ReadStore,
    @Inject(ProjectionHost) private readonly projections: ProjectionHost,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async execute(query: AppealsReportQuery): Promise<AppealsReport> {
    const checked = checkReportWindow(query.from, query.to, this.clock.now());
    if (!checked.ok) throw invalidInput(...checked.problems);
    const window = checked.window;
    await this.projections.catchUp(APPEAL_OUTCOMES_PROJECTION);
    const tallies = new Map<string, Tally>();
    const add = (entry: OutcomeEntry, counts: OutcomeCounts) => {
      const key = `${entry.dimension}\u0000${entry.id}`;
      const tally = tallies.get(key) ?? { dimension: entry.dimension, id: entry.id, name: entry.name, ...ZERO };
      tally.name = entry.name;
      addCounts(tally, counts);
      tallies.set(key, tally);
    };
    const total = { ...ZERO };
    // Days in order, so that the newest name of a rule or policy is the one shown.
    const days = await Promise.all(
      windowDays(window).map(({ day, whole }) => (whole ? this.wholeDay(query.orgId, day) : this.partialDay(query.orgId, day, window))),
    );
    for (const day of days) {
      for (const { entry, counts } of day.entries) add(entry, counts);
      addCounts(total, day.total);
    }
    const rows = (dimension: OutcomeEntry['dimension']): AppealReportRow[] =>
      [...tallies.values()]
        .filter((t) => t.dimension === dimension)
        .sort((a, b) => b.received - a.received || a.id.localeCompare(b.id))
        .map((t) => ({ id: t.id, name: t.name, ...view(t) }));
    const single = (dimension: 'moderators' | 'unattributed') => view([...tallies.values()].find((t) => t.dimension === dimension) ?? ZERO);
    return {
      from: window.from.toISOString(),
      to: window.to.toISOString(),
      total: view(total),
      rules: rows('rule'),
      policies: rows('policy'),
      moderators: single('moderators'),
      unattributed: single('unattributed'),
    };
  }

  /** A whole day: its counts per entry and its total, as the projection summed them. */
  private async wholeDay(orgId: string, day: string): Promise<DayTally> {
    const docs = await this.readStore.find<AppealOutcomeDayDoc>(APPEAL_OUTCOME_DAYS, { orgId, day });
    const entries = docs.flatMap((d) => (d.dimension === 'total' ? [] : [{ entry: { dimension: d.dimension, id: d.id, name: d.name }, counts: pick(d) }]));
    return { entries, total: pick(docs.find((d) => d.dimension === 'total') ?? ZERO) };
  }

  /**
   * The part of a day inside the window: the buckets covering its milliseconds from the later of
   * the day's start and `from` through the earlier of its end and `to` (both bounds included), in
   * time order, so that, as with whole days, the newest name of a rule or policy is the one shown.
   */
  private async partialDay(orgId: string, day: string, window: ReportWindow): Promise<DayTally> {
    const start = Date.parse(`${day}T00:00:00.000Z`);
    const from = Math.max(window.from.getTime(), start);
    const through = Math.min(window.to.getTime(), start + DAY_MS - 1);
    const runs = await Promise.all(
      bucketRanges(from, through + 1).map(({ unit, gte, lt }) =>
        this.readStore.find<AppealOutcomeBucketDoc>(
          APPEAL_OUTCOME_BUCKETS,
          { orgId, unit, start: { gte: new Date(gte).toISOString(), lt: new Date(lt).toISOString() } },
          { sort: [{ field: 'start', direction: 'asc' }] },
        ),
      ),
    );
    const total = { ...ZERO };
    const entries: DayTally['entries'] = [];
    for (const bucket of runs.flat()) {
      for (const { received, decided, accepted, rejected, ...entry } of bucket.entries)
        entries.push({ entry, counts: { received, decided, accepted, rejected } });
      addCounts(total, bucket.total);
    }
    return { entries, total };
  }
}

interface DayTally {
  entries: Array<{ entry: OutcomeEntry; counts: OutcomeCounts }>;
  total: OutcomeCounts;
}

/** Adds `counts` into `into`. */
function addCounts(into: OutcomeCounts, counts: OutcomeCounts): void {
  into.received += counts.received;
  into.decided += counts.decided;
  into.accepted += counts.accepted;
  into.rejected += counts.rejected;
}
