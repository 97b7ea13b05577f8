import type { QueryBus } from '@nestjs/cqrs';
import { describe, expect, it } from 'vitest';
import { ruleRequest } from '../../../../../test/support/review-events.js';
import { reviewWriteSide } from '../../../../../test/support/review-write-side.js';
import { ListEvaluationsQuery, type EvaluationView as RulesEvaluationView } from '#warden/rules';
import type { ProjectionHost } from '#warden/storage';
import { ItemVersions } from '../../item-versions.js';
import type { ReviewQueues } from '../../review-queues.js';
import { GetReviewJobHandler, MAX_REQUESTED_VERSIONS, newestVersions } from './get-review-job.handler.js';
import { GetReviewJobQuery } from './get-review-job.query.js';

const item = { id: 'p1', typeId: 'post', typeName: 'Post' };
const rule = { id: 'mrt-rule', name: 'Send to review' };

/** The rule's request for one edit (version) of the post: its ENQUEUE_TO_MRT action. */
const ruleRequestOf = (version: number) => ruleRequest(`rule-${version}`, { version, action: { id: 'review', rules: [rule] } });

/** That version's live evaluation, as rules' ListEvaluationsQuery answers it. */
const evaluationOf = (version: number): RulesEvaluationView => ({
  item,
  version,
  environment: 'LIVE',
  subject: 'user:u1',
  rules: [{ ...rule, status: 'LIVE', outcome: 'passed', capped: false, conditions: [{ path: '', outcome: 'passed' }] }],
  actions: [{ id: 'review', kind: 'ENQUEUE_TO_MRT', policies: [], rules: [rule] }],
  evaluatedAt: `2026-11-23T12:00:00.${String(version).padStart(3, '0')}Z`,
});

describe('the job view of an item edited many times, each edit a rule request merged into its one job', () => {
  const { stores, aggregates, events, clock, enqueuer, jobReports } = reviewWriteSide();
  const context = { orgId: 'acme', correlationId: 'test', actor: 'test' };
  const EDITS = 300;

  /** The query bus as the view uses it, each ListEvaluationsQuery counted (one indexed find, and a stream read per evaluation, in rules). */
  function queryBus() {
    const asked: Array<number | undefined> = [];
    const bus = {
      execute: (query: unknown) => {
        if (query instanceof ListEvaluationsQuery) {
          asked.push(query.version);
          const versions = query.version === undefined ? Array.from({ length: 100 }, (_, i) => EDITS - i) : [query.version];
          return Promise.resolve(versions.map(evaluationOf));
        }
        // The catalog's item types and actions, the item's deliveries: none here.
        return Promise.resolve([]);
      },
    } as unknown as QueryBus;
    return { bus, asked };
  }

  it(`looks up the evaluations of the newest ${MAX_REQUESTED_VERSIONS} versions, not one per edit, and shows those`, async () => {
    let jobId = '';
    for (let version = 1; version <= EDITS; version++) {
      jobId = (await enqueuer.enqueue(context, { queueId: 'default', item, request: ruleRequestOf(version) })).jobId;
    }
    const { bus, asked } = queryBus();
    const queues = { visible: () => Promise.resolve([{ id: 'default' }]) } as unknown as ReviewQueues;
    const host = { catchUp: () => Promise.resolve() } as unknown as ProjectionHost;
    const handler = new GetReviewJobHandler(aggregates, events, stores.readStore, queues, jobReports, new ItemVersions(events), bus, host, clock);
    aggregates.forgetCached();
    events.reset();

    const view = await handler.execute(new GetReviewJobQuery('acme', jobId, { userId: 'm1', permissions: ['VIEW_MRT'] }));

    // One look-up per version among the newest 20, and the item's recent evaluations: 21, where it was 301.
    expect(asked.filter((v) => v !== undefined).sort((a, b) => a! - b!)).toEqual(Array.from({ length: MAX_REQUESTED_VERSIONS }, (_, i) => EDITS - 19 + i));
    expect(asked.filter((v) => v === undefined)).toHaveLength(1);
    // The views: the evaluations of those versions that sent the item here, then 10 others in which rules fired.
    const sentHere = view.evaluations.filter((e) => e.actionId !== null);
    expect(sentHere.map((e) => e.version)).toEqual(Array.from({ length: MAX_REQUESTED_VERSIONS }, (_, i) => EDITS - 19 + i));
    expect(sentHere[0]).toMatchObject({ environment: 'LIVE', actionId: 'review', actions: ['review'], rules: [{ id: rule.id, outcome: 'passed' }] });
    expect(view.evaluations.filter((e) => e.actionId === null)).toHaveLength(10);
    expect(view.evaluations.length).toBeLessThanOrEqual(MAX_REQUESTED_VERSIONS + 10);
    // The job's own history is read in a few pages (its 301 events), not an evaluation stream per edit.
    expect(events.streamReads).toBeLessThan(20);
  });

  it('takes the newest versions whatever order the requests came in, each once', () => {
    expect(newestVersions([3, 1, 7, 3, 2, 7, 5].map(ruleRequestOf), 3)).toEqual([7, 5, 3]);
    expect(newestVersions([1, 1].map(ruleRequestOf), 3)).toEqual([1]);
  });
});
