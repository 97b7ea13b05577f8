import { Inject } from '@nestjs/common';
import { type IQueryHandler, QueryBus, QueryHandler } from '@nestjs/cqrs';
import { FindChildSafetyDeliveriesQuery } from '#warden/audit/contracts';
import type { Permission } from '#warden/identity/contracts';
import { type Clock, dayPlus, invalidField, validPeriod } from '#warden/kernel';
import { CLOCK } from '#warden/platform';
import type { ReadStore } from '#warden/readstore';
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
    if (query.cursor !== undefined && !CURSOR.test(query.cursor)) throw invalidField('/cursor', 'expected a cursor from an earlier page');
    const offset = query.cursor === undefined ? 0 : Number(query.cursor);
    await this.projections.catchUp(TRANSPARENCY_PROJECTION);
    const catalog = await statementCatalog(this.queries, this.projections, query.orgId);
    const views = new StatementViews(this.readStore, query.orgId, catalog);
    const page = await pageOf<StatementFactsDoc, StatementView>(
      (skip, limit) =>
        this.readStore.find<StatementFactsDoc>(
          TRANSPARENCY_STATEMENTS,
          // The period's days as a range of decidedAt (its UTC date is `day`): the index's own order.
          { orgId: query.orgId, decidedAt: { gte: period.from, lt: dayPlus(period.to, 1) } },
          {
            sort: [
              { field: 'decidedAt', direction: 'asc' },
              { field: 'puid', direction: 'asc' },
            ],
            skip,
            limit,
          },
        ),
      async (batch) => {
        const shown = new Set(await shownFacts(this.queries, query.orgId, batch, query.permissions));
        return (facts) => (shown.has(facts) ? views.of(facts) : Promise.resolve(undefined));
      },
      query.limit,
      offset,
    );
    return { ...period, statements: page.items, nextCursor: page.next === null ? null : String(page.next) };
  }
}

/** A cursor is the offset an earlier page returned: decimal digits only (not `0x10`, `1e3` or empty, which `Number` reads). */
const CURSOR = /^\d{1,15}$/;

/**
 * One page of `limit` views from `offset` in a sorted collection, where some documents have no
 * view (an action mapped `dsa: false`, one hidden from the viewer) and so take no place: batches
 * are read until the page is full. `next` is the offset of the first document not looked at, null
 * only when the collection was read to its end: a page that fills partway through a short last
 * batch still has what follows in it to list.
 */
export async function pageOf<Doc, View>(
  read: (skip: number, limit: number) => Promise<readonly Doc[]>,
  viewsOf: (batch: readonly Doc[]) => Promise<(doc: Doc) => Promise<View | undefined>>,
  limit: number,
  offset: number,
): Promise<{ items: View[]; next: number | null }> {
  const items: View[] = [];
  let next = offset;
  for (;;) {
    const batch = await read(next, limit);
    const viewOf = await viewsOf(batch);
    for (const [i, doc] of batch.entries()) {
      next++;
      const view = await viewOf(doc);
      if (view === undefined) continue;
      items.push(view);
      if (items.length === limit) return { items, next: batch.length < limit && i === batch.length - 1 ? null : next };
    }
    if (batch.length < limit) return { items, next: null };
  }
}
