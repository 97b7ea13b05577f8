import { Inject } from '@nestjs/common';
import { type IQueryHandler, QueryBus, QueryHandler } from '@nestjs/cqrs';
import { FindChildSafetyDeliveriesQuery } from '#warden/audit/contracts';
import type { Permission } from '#warden/identity/contracts';
import { type Clock, dayPlus, invalidField, validPeriod } from '#warden/kernel';
import { CLOCK } from '#warden/platform';
import { findAfter, type ReadStore } from '#warden/readstore';
import { ProjectionHost, READ_STORE } from '#warden/storage';
import { renderStatement, type StatementCatalog } from '../../domain/statement-of-reasons.js';
import { TRANSPARENCY_PROJECTION } from '../../projections/transparency.projection.js';
import {
  batchDocId,
  type StatementFactsDoc,
  TRANSPARENCY_BATCHES,
  TRANSPARENCY_STATEMENTS,
  type TransparencyBatchDoc,
} from '../../projections/transparency.read-model.js';
import { statementCatalog } from '../statement-catalog.js';
import { ListStatementsQuery, type StatementPage, type StatementSubmission, type StatementView } from './list-statements.query.js';

/** A statement's submission state: its batch's, else what keeps it from one. */
export function submissionOf(facts: StatementFactsDoc, complete: boolean, configured: boolean, batch: TransparencyBatchDoc | undefined): StatementSubmission {
  const none = { batchId: null, attempts: 0, lastError: null, submittedAt: null, nextAttemptAt: null };
  if (facts.batchId && batch) {
    return {
      state: batch.status,
      batchId: batch.batchId,
      attempts: batch.attempts,
      lastError: batch.lastError,
      submittedAt: batch.submittedAt,
      nextAttemptAt: batch.nextAttemptAt,
    };
  }
  if (!configured) return { state: 'off', ...none };
  return { state: complete ? 'unsent' : 'incomplete', ...none };
}

/**
 * The facts a viewer may see: without VIEW_CHILD_SAFETY_DATA not those of an action a child-safety
 * review decision published or caused (a strike threshold it crossed), as the audit's index marks
 * their deliveries (one read by key each; a rule's or the platform's action never is one).
 */
export async function shownFacts(
  queries: QueryBus,
  orgId: string,
  facts: readonly StatementFactsDoc[],
  permissions: readonly Permission[],
): Promise<StatementFactsDoc[]> {
  const reviewed = facts.filter((f) => f.trigger === 'decision' || f.trigger === 'strike-threshold').map((f) => f.deliveryId);
  if (reviewed.length === 0) return [...facts];
  const hidden = new Set(await queries.execute(new FindChildSafetyDeliveriesQuery(orgId, reviewed, permissions)));
  return facts.filter((f) => !hidden.has(f.deliveryId));
}

/** Internal complaint handling is always open (POST /api/v1/report/appeal); the other two are the user's by law. */
export const REDRESS = ['INTERNAL_COMPLAINT_HANDLING', 'OUT_OF_COURT_DISPUTE_SETTLEMENT', 'JUDICIAL_REDRESS'];

/** Statement views of one organization, its batches read once each (several statements share one). */
export class StatementViews {
  private readonly configured: boolean;
  private readonly batches = new Map<string, TransparencyBatchDoc | undefined>();

  constructor(
    private readonly readStore: ReadStore,
    private readonly orgId: string,
    private readonly catalog: StatementCatalog,
  ) {
    this.configured = catalog.transparency.enabled && catalog.transparency.submission !== undefined;
  }

  /** Its statement rendered with the mapping in force; undefined for an action mapped `dsa: false`. */
  async of(facts: StatementFactsDoc): Promise<StatementView | undefined> {
    const rendered = renderStatement(facts, this.catalog);
    if (rendered.kind === 'none') return undefined;
    return {
      puid: facts.puid,
      deliveryId: facts.deliveryId,
      decidedAt: facts.decidedAt,
      trigger: facts.trigger,
      item: facts.item,
      actionId: facts.actionId,
      policyIds: facts.policyIds,
      statement: rendered.kind === 'statement' ? rendered.statement : null,
      problems: rendered.kind === 'incomplete' ? rendered.problems : [],
      redress: REDRESS,
      submission: submissionOf(facts, rendered.kind === 'statement', this.configured, await this.batch(facts.batchId)),
    };
  }

  private async batch(batchId: string | null | undefined): Promise<TransparencyBatchDoc | undefined> {
    if (!batchId) return undefined;
    if (!this.batches.has(batchId))
      this.batches.set(batchId, await this.readStore.get<TransparencyBatchDoc>(TRANSPARENCY_BATCHES, batchDocId(this.orgId, batchId)));
    return this.batches.get(batchId);
  }
}

/**
 * Published actions of the period in decision order, each with its statement rendered with the
 * mapping in force; actions mapped `dsa: false` are left out, and so, without
 * VIEW_CHILD_SAFETY_DATA, are those a child-safety decision caused (`shownFacts`). The projection is caught up first.
 */
@QueryHandler(ListStatementsQuery)
export class ListStatementsHandler implements IQueryHandler<ListStatementsQuery> {
  constructor(
    @Inject(READ_STORE) private readonly readStore: ReadStore,
    @Inject(ProjectionHost) private readonly projections: ProjectionHost,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly queries: QueryBus,
  ) {}

  async execute(query: ListStatementsQuery): Promise<StatementPage> {
    const period = validPeriod(query.from, query.to, this.clock.now());
    const range = { gte: period.from, lt: dayPlus(period.to, 1) };
    const cursor = parseCursor(query.cursor, range);
    await this.projections.catchUp(TRANSPARENCY_PROJECTION);
    const catalog = await statementCatalog(this.queries, this.projections, query.orgId);
    const views = new StatementViews(this.readStore, query.orgId, catalog);
    const after = typeof cursor === 'number' ? await this.statementBefore(query.orgId, range, cursor) : cursor;
    if (typeof cursor === 'number' && cursor > 0 && after === undefined) return { ...period, statements: [], nextCursor: null };
    const page = await pageOf<StatementFactsDoc, StatementView, StatementKey>(
      (last, limit) => readAfter(this.readStore, query.orgId, range, last, limit),
      async (batch) => {
        const shown = new Set(await shownFacts(this.queries, query.orgId, batch, query.permissions));
        return (facts) => (shown.has(facts) ? views.of(facts) : Promise.resolve(undefined));
      },
      query.limit,
      Math.max(query.limit, MIN_SCAN),
      after,
    );
    return { ...period, statements: page.items, nextCursor: page.next === null ? null : cursorOf(page.next) };
  }

  /** A cursor of an earlier release is an offset: the statement before it, found once, by offset. */
  private async statementBefore(orgId: string, range: { gte: string; lt: string }, offset: number): Promise<StatementFactsDoc | undefined> {
    if (offset === 0) return undefined;
    const [found] = await this.readStore.find<StatementFactsDoc>(
      TRANSPARENCY_STATEMENTS,
      { orgId, decidedAt: range },
      { sort: STATEMENT_ORDER, skip: offset - 1, limit: 1 },
    );
    return found;
  }
}

/** The index's own order (orgId, decidedAt, puid): a page is a range of it, never a sort. */
const STATEMENT_ORDER = [
  { field: 'decidedAt', direction: 'asc' },
  { field: 'puid', direction: 'asc' },
] as const;

/**
 * Statements a request looks at, shown or not, at least: where the period's statements are mostly
 * hidden (actions mapped `dsa: false`, a child-safety decision's to a viewer without the
 * permission), a page stops here, short, with a cursor, instead of reading the period to its end.
 */
export const MIN_SCAN = 1_000;

export type StatementKey = Pick<StatementFactsDoc, 'decidedAt' | 'puid'>;
/** Up to `limit` statements of the organization's period after `last`, in (decidedAt, puid) order (findAfter). */
export function readAfter(
  readStore: ReadStore,
  orgId: string,
  range: { gte: string; lt: string },
  last: StatementKey | undefined,
  limit: number,
): Promise<StatementFactsDoc[]> {
  return findAfter<StatementFactsDoc>(readStore, TRANSPARENCY_STATEMENTS, { orgId }, ['decidedAt', 'puid'], last, limit, range);
}

/** An earlier release's cursor: the offset of the next statement, decimal digits only. */
const OFFSET_CURSOR = /^\d{1,15}$/;
const KEY_CURSOR = /^[A-Za-z0-9_-]{1,1400}$/;

/** The last statement a page looked at, as the next page's cursor (opaque to clients: docs/transparency.md). */
export const cursorOf = (facts: StatementKey): string => Buffer.from(JSON.stringify([facts.decidedAt, facts.puid])).toString('base64url');

/** A cursor from an earlier page of this period: the statement it follows, or an old offset. */
export function parseCursor(raw: string | undefined, range: { gte: string; lt: string }): StatementKey | number | undefined {
  if (raw === undefined) return undefined;
  if (OFFSET_CURSOR.test(raw)) return Number(raw);
  const key = KEY_CURSOR.test(raw) ? decodeKey(raw) : undefined;
  if (key === undefined) throw invalidField('/cursor', 'expected a cursor from an earlier page');
  // A cursor names a statement of the period it was given for; another period's would list across the boundary.
  if (key.decidedAt < range.gte || key.decidedAt >= range.lt) throw invalidField('/cursor', 'the cursor is from a page of another period');
  return key;
}

function decodeKey(raw: string): StatementKey | undefined {
  try {
    const value: unknown = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8'));
    if (!Array.isArray(value) || value.length !== 2 || !value.every((v) => typeof v === 'string' && v !== '' && v.length <= 512)) return undefined;
    return { decidedAt: value[0] as string, puid: value[1] as string };
  } catch {
    return undefined;
  }
}

/**
 * One page of at most `limit` views in a sorted collection read in batches after a document
 * (`read`), where some documents have no view (an action mapped `dsa: false`, one hidden from the
 * viewer) and so take no place. Batches are read until the page is full or `scanLimit` documents
 * were looked at. `next` is the last document looked at (the next page reads after it), null only
 * when the collection was read to its end: a page that fills partway through a short last batch
 * still has what follows in it to list, and a page cut short by `scanLimit` may have more.
 */
export async function pageOf<Doc extends Key, View, Key = Doc>(
  read: (last: Key | undefined, limit: number) => Promise<readonly Doc[]>,
  viewsOf: (batch: readonly Doc[]) => Promise<(doc: Doc) => Promise<View | undefined>>,
  limit: number,
  scanLimit: number,
  after?: Key,
): Promise<{ items: View[]; next: Key | null }> {
  const items: View[] = [];
  let last = after;
  let scanned = 0;
  for (;;) {
    const wanted = Math.min(limit, scanLimit - scanned);
    const batch = await read(last, wanted);
    const viewOf = await viewsOf(batch);
    const end = batch.length < wanted;
    for (const [i, doc] of batch.entries()) {
      last = doc;
      scanned++;
      const view = await viewOf(doc);
      if (view === undefined) continue;
      items.push(view);
      if (items.length === limit) return { items, next: end && i === batch.length - 1 ? null : doc };
    }
    if (end) return { items, next: null };
    if (scanned >= scanLimit) return { items, next: last ?? null };
  }
}
