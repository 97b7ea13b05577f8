import { afterAll } from 'vitest';
import { SqliteEventStore } from '#warden/eventstore';
import { FixedClock, randomIds } from '#warden/kernel';
import { AggregateStore } from '#warden/storage';
import { JobEnqueuer } from '../../libs/review/src/enqueue/job-enqueuer.js';
import { JobReports } from '../../libs/review/src/job-reports.js';
import { CountingEventStore } from './counting-event-store.js';
import { sqliteStores } from './sqlite-stores.js';

/**
 * Review's write side on a real embedded log, its reads counted (CountingEventStore): the stores,
 * closed after the file's tests, the aggregates, the enqueuer and JobReports. Call it in a describe.
 */
export function reviewWriteSide() {
  const stores = sqliteStores();
  afterAll(() => stores.close());
  const clock = new FixedClock(new Date('2026-11-23T12:00:00Z'));
  const events = new CountingEventStore(new SqliteEventStore(stores.open()));
  const aggregates = new AggregateStore(events, clock, randomIds);
  return { stores, clock, events, aggregates, enqueuer: new JobEnqueuer(aggregates, clock), jobReports: new JobReports(aggregates, events) };
}
