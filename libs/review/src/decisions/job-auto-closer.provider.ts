import type { Provider } from '@nestjs/common';
import type { Clock } from '#warden/kernel';
import { CLOCK } from '#warden/platform';
import type { ReadStore } from '#warden/readstore';
import { AggregateStore, ProjectionHost, READ_STORE } from '#warden/storage';
import { AUTO_CLOSE_QUEUES_PROJECTION } from '../projections/auto-close-queues.projection.js';
import { REVIEW_JOBS_PROJECTION } from '../projections/review-jobs.projection.js';
import { JobAutoCloser } from './job-auto-closer.js';

/** JobAutoCloser is plain (its spec runs it on bare SQLite stores); Nest builds it from these. */
export const jobAutoCloserProvider: Provider = {
  provide: JobAutoCloser,
  inject: [READ_STORE, AggregateStore, CLOCK, ProjectionHost],
  useFactory: (readStore: ReadStore, aggregates: AggregateStore, clock: Clock, projections: ProjectionHost) =>
    new JobAutoCloser({
      readStore,
      aggregates,
      clock,
      catchUp: async (through) => {
        for (const name of [REVIEW_JOBS_PROJECTION, AUTO_CLOSE_QUEUES_PROJECTION]) {
          await (through === undefined ? projections.catchUp(name) : projections.catchUpTo(name, through));
        }
      },
    }),
};
