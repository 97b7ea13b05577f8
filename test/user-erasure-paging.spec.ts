import { afterEach, describe, expect, it } from 'vitest';
import { anEvent } from './support/events.js';
import { appealPart, ruleRequest } from './support/review-events.js';
import { sqliteStores } from './support/sqlite-stores.js';
import { ProjectionRunner, SqliteSubjectKeyStore } from '#warden/eventstore';
import { FixedClock, foldStream, randomIds } from '#warden/kernel';
import type { Filter, FindOptions, ReadStore } from '#warden/readstore';
import { CloseErasedUserJobsCommand } from '#warden/review';
import { AggregateStore } from '#warden/storage';
import { reviewJobDecider } from '../libs/review/src/domain/review-job.decider.js';
import { appealJobId, reviewJobStream } from '../libs/review/src/domain/review.streams.js';
import { ERASED_ITEMS_PER_TURN, JobAutoCloser } from '../libs/review/src/decisions/job-auto-closer.js';
import { JobEnqueuer } from '../libs/review/src/enqueue/job-enqueuer.js';
import { autoCloseQueuesProjection } from '../libs/review/src/projections/auto-close-queues.projection.js';
import { REVIEW_JOBS } from '../libs/review/src/projections/review-jobs.read-model.js';
import { reviewJobsProjection } from '../libs/review/src/projections/review-jobs.projection.js';
import { gdprDeletionDecider } from '../libs/erasure/src/domain/gdpr-deletion.decider.js';
import { gdprDeletionStream } from '../libs/erasure/src/domain/gdpr-deletion.streams.js';
import { SUBJECT_RECORDS, subjectRecordsProjection } from '../libs/erasure/src/projections/subject-records.projection.js';
import { SUBJECT_RECORDS_PAGE, UserEraser } from '../libs/erasure/src/user-eraser.js';

const T0 = new Date('2026-03-01T00:00:00.000Z');
/** The flooding user's items; the first WITH_JOBS have an open job, as most of a flood's items have none. */
const ITEMS = 2_500;
const WITH_JOBS = 100;

type Find = { readonly collection: string; readonly filter: Filter; readonly options: FindOptions; readonly turn: number };

/**
 * A user who flooded items, erased against real SQLite stores: the subject records are read a page
 * at a time, each item's jobs by one query, and no turn of the event loop reads more than a page of
 * records and a page of items' jobs. Turns are counted, never timed: a ticker that re-arms itself
 * with setImmediate moves on once per turn of the loop, whatever the machine's speed. Most items
 * have no open job, as in a flood: a close appends to the log, which yields by itself, so items
 * with jobs alone would not show whether the look-ups yield.
 */
describe('UserEraser', () => {
  let stores: ReturnType<typeof sqliteStores> | undefined;
  afterEach(async () => {
    await stores?.close();
    stores = undefined;
  });

  async function world() {
    stores = sqliteStores();
    const { events } = stores;
    const clock = new FixedClock(T0);
    const aggregates = new AggregateStore(events, clock, randomIds);
    const context = { orgId: 'acme', correlationId: 'c', causationId: null, actor: 'audit' };
    const subject = 'user:u-flood';
    const projected = [subjectRecordsProjection, reviewJobsProjection, autoCloseQueuesProjection];
    // As a process's ProjectionHost makes them when it starts: the queries are those of a running worker.
    for (const { collection, fields } of projected.flatMap((p) => p.indexes ?? [])) await stores.readStore.ensureIndex(collection, fields);

    // The user's items, a few reports and appeals, and another user's item.
    const submitted = (type: string, stream: string, data: Record<string, string>, who = subject) =>
      events.append(stream, [anEvent(type, { ...data, subject: who })], 'any');
    for (let i = 0; i < ITEMS; i++) await submitted('ItemSubmitted', `item-acme-post-i${i}`, { itemId: `i${i}`, typeId: 'post' });
    for (let i = 0; i < 3; i++) await submitted('ReportSubmitted', `report-acme-r${i}`, { reportId: `r${i}` });
    for (let i = 0; i < 2; i++) await submitted('AppealSubmitted', `appeal-acme-a${i}`, { appealId: `a${i}` });
    await submitted('ItemSubmitted', 'item-acme-post-other', { itemId: 'other', typeId: 'post' }, 'user:u-other');

    const enqueuer = new JobEnqueuer(aggregates, clock);
    const open = async (itemId: string, appealId?: string) => {
      const request = ruleRequest(`${itemId}-${appealId ?? ''}`, { at: clock.now().toISOString(), ...(appealId ? appealPart(appealId) : {}) });
      const item = { id: itemId, typeId: 'post', typeName: 'Post' };
      const queueId = appealId ? 'appeals' : 'default';
      return (await enqueuer.enqueue(context, { queueId, item, request, ...(appealId ? { jobId: appealJobId('acme', appealId) } : {}) })).jobId;
    };
    // Open jobs on the first items, an appeal job on one of them, one on the last item, and one on the other user's item.
    const toClose: string[] = [];
    for (let i = 0; i < WITH_JOBS; i++) toClose.push(await open(`i${i}`));
    toClose.push(await open('i7', 'a0'), await open(`i${ITEMS - 1}`));
    const othersJob = await open('other');

    const requested = await aggregates.handle(
      gdprDeletionStream('acme', 'req-1'),
      gdprDeletionDecider,
      {
        type: 'RequestGdprDeletion',
        requestId: 'req-1',
        user: { id: 'u-flood', typeId: 'user' },
        subject,
        consoleUserId: null,
        now: clock.now().toISOString(),
      },
      context,
    );
    const requestedAt = requested.result!.position;
    const request = { requestId: 'req-1', user: { id: 'u-flood', typeId: 'user' }, subject, requestedAt: clock.now().toISOString() };
    // A job opened after the request, on an item of a page with no other job: it stays open (gdpr.md, "While it runs").
    clock.advance(1000);
    const meanwhile = await open(`i${ITEMS / 2}`);

    // The read store, each find noted with the turn of the event loop it ran in (tick).
    const finds: Find[] = [];
    let turn = 0;
    let ticking = false;
    const tick = () => {
      turn++;
      if (ticking) setImmediate(tick);
    };
    const counted = async <T>(work: () => Promise<T>): Promise<T> => {
      finds.length = 0;
      ticking = true;
      setImmediate(tick);
      try {
        return await work();
      } finally {
        ticking = false;
      }
    };
    const readStore = new Proxy(stores.readStore, {
      get(target, property) {
        if (property === 'find') {
          return (collection: string, filter: Filter = {}, options: FindOptions = {}) => {
            finds.push({ collection, filter, options, turn });
            return target.find(collection, filter, options);
          };
        }
        const value: unknown = Reflect.get(target, property, target);
        return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      },
    }) as ReadStore;

    const runners = new Map(projected.map((p) => [p.name, new ProjectionRunner(p, events, stores!.readStore)]));
    const closer = new JobAutoCloser({
      readStore,
      aggregates,
      clock,
      // To the head, past the request: the job opened meanwhile is in the read model, and left open for its openedAt.
      catchUp: async () => {
        for (const p of [reviewJobsProjection, autoCloseQueuesProjection]) await runners.get(p.name)!.catchUp();
      },
    });
    const commands = {
      execute: async (command: unknown) => {
        if (!(command instanceof CloseErasedUserJobsCommand)) throw new Error('unexpected command');
        return closer.closeJobsOfErasedUser(command.items, command.requestId, command.context, command.requested);
      },
    };
    const projections = {
      catchUpTo: async (name: string, position: number) => runners.get(name)!.catchUp(position),
      projections: () => [],
    };
    const eraser = new UserEraser(readStore, new SqliteSubjectKeyStore(stores.open()), commands as never, aggregates, projections as never, clock);

    const jobOf = async (jobId: string) => {
      const stream = reviewJobStream('acme', jobId);
      const recorded = await events.readStream(stream);
      return { status: foldStream(reviewJobDecider, stream, recorded).status, decisions: recorded.filter((e) => e.type === 'ReviewJobDecided') };
    };
    /** Each job of the user's items opened by the request closed once, USER_ERASED; the others open. */
    const expectClosed = async () => {
      for (const jobId of toClose) {
        const { status, decisions } = await jobOf(jobId);
        expect(status).toBe('CLOSED');
        expect(decisions.map((d) => d.data)).toEqual([expect.objectContaining({ type: 'AUTOMATIC_CLOSE', closeReason: 'USER_ERASED' })]);
      }
      for (const jobId of [othersJob, meanwhile]) expect((await jobOf(jobId)).status).toBe('OPEN');
    };
    /** The most finds of `collection` that one turn of the event loop ran. */
    const mostInOneTurn = (collection: string) => {
      const perTurn = new Map<number, number>();
      for (const f of finds) if (f.collection === collection) perTurn.set(f.turn, (perTurn.get(f.turn) ?? 0) + 1);
      return Math.max(0, ...perTurn.values());
    };
    return { eraser, closer, context, request, requestedAt, finds, counted, mostInOneTurn, expectClosed, toClose };
  }

  it(`erases a user with ${ITEMS} items a page of records per turn of the event loop, one job query per item, and closes each open job once`, async () => {
    const { eraser, context, request, requestedAt, finds, counted, mostInOneTurn, expectClosed, toClose } = await world();

    const erased = await counted(() => eraser.erase(request, context, requestedAt));

    expect(erased).toEqual({ dataKeys: 0, items: ITEMS, reports: 3, appeals: 2, reviewJobsClosed: toClose.length, consoleAccounts: 0 });
    // The records: pages of SUBJECT_RECORDS_PAGE, never an unbounded read, up to the first short page.
    const pages = Math.ceil((ITEMS + 5) / SUBJECT_RECORDS_PAGE);
    expect(finds.filter((f) => f.collection === SUBJECT_RECORDS).map((f) => f.options)).toEqual(
      Array.from({ length: pages }, (_, page) => ({ limit: SUBJECT_RECORDS_PAGE, skip: page * SUBJECT_RECORDS_PAGE })),
    );
    // The jobs: one query per item, not one per open state.
    const jobFinds = finds.filter((f) => f.collection === REVIEW_JOBS);
    expect(jobFinds).toHaveLength(ITEMS);
    expect(new Set(jobFinds.map((f) => f.filter['itemId'])).size).toBe(ITEMS);
    // No turn of the event loop read more than one page of records, nor the jobs of more than a page of items.
    expect(mostInOneTurn(SUBJECT_RECORDS)).toBe(1);
    expect(mostInOneTurn(REVIEW_JOBS)).toBeLessThanOrEqual(ERASED_ITEMS_PER_TURN);
    await expectClosed();

    // A re-run (the request delivered again after a crash) closes nothing more and counts the same records.
    expect(await counted(() => eraser.erase(request, context, requestedAt))).toEqual({ ...erased, reviewJobsClosed: 0 });
    expect(mostInOneTurn(SUBJECT_RECORDS)).toBe(1);
    await expectClosed();
  }, 60_000);

  it(`looks up the open jobs of an erased user's items ${ERASED_ITEMS_PER_TURN} items per turn of the event loop, however many it is given`, async () => {
    const { closer, context, request, requestedAt, finds, counted, mostInOneTurn, expectClosed, toClose } = await world();
    const items = Array.from({ length: ITEMS }, (_, i) => ({ id: `i${i}`, typeId: 'post' }));
    const requested = { position: requestedAt, at: request.requestedAt };

    expect(await counted(() => closer.closeJobsOfErasedUser(items, 'req-1', context, requested))).toBe(toClose.length);
    expect(finds.filter((f) => f.collection === REVIEW_JOBS)).toHaveLength(ITEMS);
    expect(mostInOneTurn(REVIEW_JOBS)).toBeLessThanOrEqual(ERASED_ITEMS_PER_TURN);
    await expectClosed();
    expect(await closer.closeJobsOfErasedUser(items, 'req-1', context, requested)).toBe(0);
  }, 60_000);
});
