import { afterEach, describe, expect, it } from 'vitest';
import { anEvent } from '../../../../test/support/events.js';
import { crashingPartway } from '../../../../test/support/crashing-read-store.js';
import { sqliteStores } from '../../../../test/support/sqlite-stores.js';
import { ProjectionRunner, rebuildReadModels } from '#warden/eventstore';
import type { JsonObject, NewEvent } from '#warden/kernel';
import { statementPuid, transparencyProjection } from './transparency.projection.js';
import {
  batchDocId,
  dayDocId,
  statementDocId,
  TRANSPARENCY_APPEALS,
  TRANSPARENCY_BATCHES,
  TRANSPARENCY_DAYS,
  TRANSPARENCY_ITEMS,
  TRANSPARENCY_JOBS,
  TRANSPARENCY_STATEMENTS,
  type StatementFactsDoc,
  type TransparencyBatchDoc,
  type TransparencyDayDoc,
} from './transparency.read-model.js';

const at = (event: NewEvent, occurredAt: string): NewEvent => ({ ...event, metadata: { ...event.metadata, occurredAt } });
const submitted = (itemId: string, when: string) =>
  at(anEvent('ItemSubmitted', { itemId, typeId: 'post', data: {}, creator: null, subject: 'u', source: 'items' } as JsonObject), when);
const report = (itemId: string, reporterType: string, when: string, policyId: string | null = 'hate') =>
  at(
    anEvent('ReportSubmitted', {
      reportId: `r-${itemId}-${reporterType}`,
      reporter: { kind: 'user', id: 'rep', typeId: reporterType },
      reportedAt: when,
      reportedItem: { id: itemId, typeId: 'post', version: 1 },
      policyId,
      csam: false,
      reason: null,
      thread: [],
      reportedInThread: [],
      additionalItems: [],
      subject: 'rep',
    } as JsonObject),
    when,
  );
const action = (deliveryId: string, itemId: string, trigger: string | undefined, when: string, rules: string[] = []) =>
  at(
    anEvent('ActionCallbackRequested', {
      deliveryId,
      item: { id: itemId, typeId: 'post', typeName: 'Post' },
      action: { id: 'remove' },
      policies: [{ id: 'hate', name: 'Hate', penalty: 'LOW' }],
      rules: rules.map((id) => ({ id, name: id })),
      custom: {},
      creator: null,
      ...(trigger ? { trigger } : {}),
    } as JsonObject),
    when,
  );
const appeal = (appealId: string, when: string) =>
  at(
    anEvent('AppealSubmitted', {
      appealId,
      appealedAt: when,
      actionedItem: { id: 'p1', typeId: 'post' },
      actionsTaken: ['remove'],
      violatingPolicyIds: [],
      subject: 'u',
    } as JsonObject),
    when,
  );
const appealDecided = (appealId: string, decision: string, when: string) =>
  at(anEvent('AppealDecided', { appealId, decision, jobId: 'j', decisionId: 'x', decidedBy: { userId: 'm' }, decidedAt: when }), when);

const jobOpened = (jobId: string, itemId: string, source: string, rules: string[], when: string) =>
  at(
    anEvent('ReviewJobOpened', {
      jobId,
      queueId: 'default',
      generation: 1,
      item: { id: itemId, typeId: 'post' },
      request: {
        requestId: `q-${jobId}`,
        source,
        at: when,
        version: 1,
        report: null,
        action: rules.length ? { id: 'enqueue-to-mrt', rules: rules.map((id) => ({ id, name: id })) } : null,
        policies: [],
        routedBy: null,
        fromJobId: null,
      },
      carried: [],
      openedAt: when,
      reasons: [],
      subject: null,
    } as JsonObject),
    when,
  );
const jobMerged = (jobId: string, rules: string[], when: string) =>
  at(
    anEvent('ReviewJobMerged', {
      jobId,
      request: {
        requestId: `m-${jobId}`,
        source: 'RULE_EXECUTION',
        at: when,
        version: 1,
        report: null,
        action: { id: 'enqueue-to-mrt', rules: rules.map((id) => ({ id, name: id })) },
        policies: [],
        routedBy: null,
        fromJobId: null,
      },
      mergedAt: when,
      reasons: [],
      subject: null,
    } as JsonObject),
    when,
  );

describe('transparency projection', () => {
  let stores: ReturnType<typeof sqliteStores>;
  afterEach(async () => {
    await stores?.close();
  });

  async function seed() {
    const { events } = stores;
    await events.append('item-acme:post:p1', [submitted('p1', '2026-03-01T08:00:00Z')], 'any');
    await events.append('item-acme:post:p2', [submitted('p2', '2026-03-01T09:00:00Z')], 'any');
    await events.append('report-acme:r1', [report('p2', 'user', '2026-03-02T10:00:00Z'), report('p2', 'flagger', '2026-03-02T10:30:00Z')], 'any');
    await events.append('item_evaluation-acme:p1', [action('d1', 'p1', undefined, '2026-03-02T11:00:00Z')], 'any');
    await events.append('review_job-acme:j2', [action('d2', 'p2', 'decision', '2026-03-02T12:00:00Z', ['r1'])], 'any');
    await events.append(
      'transparency_batch-acme:b1',
      [
        at(
          anEvent('StatementBatchRequested', {
            batchId: 'b1',
            statements: [{ puid: statementPuid('acme', 'd1'), deliveryId: 'd1' }],
            bodies: [{ puid: statementPuid('acme', 'd1') }],
            requestedAt: '2026-03-02T11:01:00Z',
            nextAttemptAt: '2026-03-02T11:01:00Z',
          } as JsonObject),
          '2026-03-02T11:01:00Z',
        ),
        at(
          anEvent('StatementBatchAttemptFailed', {
            batchId: 'b1',
            attempt: 1,
            status: 503,
            error: 'The Database answered 503',
            retryAfterMs: null,
            alreadyInDatabase: [],
            attemptedAt: '2026-03-02T11:01:01Z',
            nextAttemptAt: '2026-03-02T11:01:11Z',
          } as JsonObject),
          '2026-03-02T11:01:01Z',
        ),
        at(
          anEvent('StatementBatchSubmitted', {
            batchId: 'b1',
            attempt: 2,
            status: 201,
            alreadyInDatabase: [],
            submittedAt: '2026-03-02T11:01:11Z',
          } as JsonObject),
          '2026-03-02T11:01:11Z',
        ),
      ],
      'any',
    );
    await events.append(
      'appeal-acme:a1',
      [appeal('a1', '2026-03-02T13:00:00Z'), appealDecided('a1', 'ACCEPT', '2026-03-02T14:00:00Z'), appealDecided('a1', 'REJECT', '2026-03-02T15:00:00Z')],
      'any',
    );
  }

  const facts = (deliveryId: string) => stores.readStore.get<StatementFactsDoc>(TRANSPARENCY_STATEMENTS, statementDocId('acme', deliveryId));
  const day = () => stores.readStore.get<TransparencyDayDoc>(TRANSPARENCY_DAYS, dayDocId('acme', '2026-03-02'));
  const batch = () => stores.readStore.get<TransparencyBatchDoc>(TRANSPARENCY_BATCHES, batchDocId('acme', 'b1'));

  it('records the facts of each published action: source, automated means, dates, an opaque PUID', async () => {
    stores = sqliteStores();
    await seed();
    await new ProjectionRunner(transparencyProjection, stores.events, stores.readStore).catchUp();
    expect(await facts('d1')).toMatchObject({
      trigger: 'rule',
      contentDate: '2026-03-01',
      notice: null,
      automatedDetection: true,
      automatedDecision: true,
      puid: statementPuid('acme', 'd1'),
    });
    expect(statementPuid('acme', 'd1')).toMatch(/^warden-[0-9a-f]{40}$/);
    // Its submission: in batch b1, submitted at the second attempt; d2 is in no batch.
    expect((await facts('d1'))?.batchId).toBe('b1');
    expect((await facts('d2'))?.batchId).toBeNull();
    expect(await batch()).toMatchObject({
      status: 'submitted',
      statements: 1,
      attempts: 2,
      lastError: 'The Database answered 503',
      submittedAt: '2026-03-02T11:01:11Z',
      nextAttemptAt: null,
    });
    expect(await facts('d2')).toMatchObject({
      trigger: 'decision',
      notice: { firstAt: '2026-03-02T10:00:00.000Z', reporterTypes: ['flagger', 'user'] },
      automatedDetection: true,
      automatedDecision: false,
      decidedAt: '2026-03-02T12:00:00.000Z',
    });
    expect(await day()).toMatchObject({
      noticesByPolicy: { hate: 2 },
      noticesByReporterType: { user: 1, flagger: 1 },
      actions: { [JSON.stringify(['remove', 'hate', '', 1, 1])]: 1, [JSON.stringify(['remove', 'hate', 'flagger,user', 1, 0])]: 1 },
      noticeToAction: { '7200': 1 },
      appealsReceived: 1,
      appealsDecided: 1,
      appealsOverturned: 1,
      appealDuration: { '3600': 1 },
    });
  });

  it("flags a moderator's decision as automatically detected when a rule sent the item to review (a decision's callback names no rule)", async () => {
    stores = sqliteStores();
    const { events } = stores;
    await events.append(
      'review_job-acme:j-rule',
      [jobOpened('j-rule', 'p3', 'RULE_EXECUTION', ['to-review'], '2026-03-03T08:00:00Z'), action('d-rule', 'p3', 'decision', '2026-03-03T09:00:00Z')],
      'any',
    );
    await events.append(
      'review_job-acme:j-report',
      [jobOpened('j-report', 'p4', 'REPORT', [], '2026-03-03T08:00:00Z'), action('d-report', 'p4', 'decision', '2026-03-03T09:00:00Z')],
      'any',
    );
    await events.append(
      'review_job-acme:j-merged',
      [
        jobOpened('j-merged', 'p5', 'REPORT', [], '2026-03-03T08:00:00Z'),
        jobMerged('j-merged', ['to-review'], '2026-03-03T08:30:00Z'),
        action('d-merged', 'p5', 'decision', '2026-03-03T09:00:00Z'),
      ],
      'any',
    );
    // A job moved with many requests names the moved job (carriedFrom) instead of copying them: it says whether a rule's is among them.
    const moved = jobOpened('j-moved', 'p6', 'MRT_JOB', [], '2026-03-03T08:00:00Z');
    const named = { jobId: 'j-old', requests: 600, reports: 599, sources: ['REPORT', 'RULE_EXECUTION'], policies: [], version: 1, ruleDetected: true };
    await events.append(
      'review_job-acme:j-moved',
      [{ ...moved, data: { ...moved.data, carriedFrom: named } }, action('d-moved', 'p6', 'decision', '2026-03-03T09:00:00Z')],
      'any',
    );
    await new ProjectionRunner(transparencyProjection, stores.events, stores.readStore).catchUp();
    expect((await facts('d-rule'))?.automatedDetection).toBe(true);
    expect((await facts('d-report'))?.automatedDetection).toBe(false);
    expect((await facts('d-merged'))?.automatedDetection).toBe(true);
    expect((await facts('d-moved'))?.automatedDetection).toBe(true);
  });

  it('reads a reportedAt or appealedAt in every form the API accepts (a comma fraction, an hours-only offset) as UTC, and goes on past it', async () => {
    stores = sqliteStores();
    const { events } = stores;
    await events.append('report-acme:r9', [at(report('p9', 'user', '2026-03-02T10:00:00,5Z'), '2026-03-02T10:00:01Z')], 'any');
    await events.append('appeal-acme:a9', [at(appeal('a9', '2026-03-02T13:00+02'), '2026-03-02T11:00:01Z')], 'any');
    await events.append('appeal-acme:a9', [appealDecided('a9', 'REJECT', '2026-03-02T12:00:00,25Z')], 'any');
    await new ProjectionRunner(transparencyProjection, stores.events, stores.readStore).catchUp();
    expect(await day()).toMatchObject({ noticesByPolicy: { hate: 1 }, appealsReceived: 1, appealsDecided: 1, appealDuration: { '3600': 1 } });
  });

  it('counts every action and appeal once when a commit landed its statements, items and appeals but not its daily counters (MongoDB writes collection by collection)', async () => {
    stores = sqliteStores();
    await seed();
    const landed = [TRANSPARENCY_STATEMENTS, TRANSPARENCY_ITEMS, TRANSPARENCY_APPEALS, TRANSPARENCY_JOBS, TRANSPARENCY_BATCHES];
    await expect(new ProjectionRunner(transparencyProjection, stores.events, crashingPartway(stores.readStore, landed)).catchUp()).rejects.toThrow();
    expect(await day()).toBeUndefined();
    await new ProjectionRunner(transparencyProjection, stores.events, stores.readStore).catchUp();
    const redelivered = { day: await day(), d2: await facts('d2') };
    // The same log projected without a crash.
    const crashed = stores;
    stores = sqliteStores();
    await seed();
    await new ProjectionRunner(transparencyProjection, stores.events, stores.readStore).catchUp();
    const clean = { day: await day(), d2: await facts('d2') };
    await stores.close();
    stores = crashed;
    expect(redelivered).toEqual(clean);
    expect(redelivered.day).toMatchObject({ noticesByPolicy: { hate: 2 }, appealsReceived: 1, appealsDecided: 1, noticeToAction: { '7200': 1 } });
  });

  it("keeps a day's document bounded however many kinds of action the day has: past 256 kinds, or a long one, each counts in a document of its own for the day", async () => {
    stores = sqliteStores();
    // 300 actions, each naming a set of policies of its own; the first 40 name 100 long policy ids each.
    const policies = (i: number) => (i < 40 ? Array.from({ length: 100 }, (_, k) => ({ id: `p${i}-${'x'.repeat(200)}-${k}` })) : [{ id: `p${i}` }]);
    for (let i = 0; i < 300; i++) {
      const a = action(`k${i}`, `p${i}`, undefined, '2026-03-02T11:00:00Z');
      await stores.events.append(`item_evaluation-acme:k${i}`, [{ ...a, data: { ...a.data, policies: policies(i) } as JsonObject }], 'any');
    }
    await new ProjectionRunner(transparencyProjection, stores.events, stores.readStore).catchUp();
    const days = await stores.readStore.find<TransparencyDayDoc>(TRANSPARENCY_DAYS, { orgId: 'acme', day: '2026-03-02' });
    const main = (await day())!;
    expect(Object.keys(main.actions).length).toBeLessThanOrEqual(256);
    expect(Object.keys(main.actions).every((key) => key.length <= 1024)).toBe(true);
    // Every document of the day is small, and together they count each action once.
    expect(days.every((d) => JSON.stringify(d).length < 300_000)).toBe(true);
    const counted = days.flatMap((d) => Object.entries(d.actions));
    expect(new Set(counted.map(([key]) => key)).size).toBe(300);
    expect(counted.reduce((n, [, c]) => n + c, 0)).toBe(300);
  });

  it('replaying the log again, or a rebuild, changes nothing', async () => {
    stores = sqliteStores();
    await seed();
    await new ProjectionRunner(transparencyProjection, stores.events, stores.readStore).catchUp();
    const once = { d1: await facts('d1'), d2: await facts('d2'), day: await day(), batch: await batch() };
    await stores.readStore.commit([], { projection: transparencyProjection.name, from: await stores.readStore.checkpoint(transparencyProjection.name), to: 0 });
    await new ProjectionRunner(transparencyProjection, stores.events, stores.readStore).catchUp();
    expect({ d1: await facts('d1'), d2: await facts('d2'), day: await day(), batch: await batch() }).toEqual(once);
    await rebuildReadModels([transparencyProjection], stores.events, stores.readStore);
    expect({ d1: await facts('d1'), d2: await facts('d2'), day: await day(), batch: await batch() }).toEqual(once);
  });
});
