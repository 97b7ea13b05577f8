// The upgrade to reports routed by the rules engine (docs/operations.md, "Upgrading: reports routed
// by the rules engine"): the log as the release before left it (review's own `report-routing`
// reactor had opened the jobs of the reports it had routed, and stopped at its checkpoint), then the
// new release's reactors started as a worker starts them (ProjectionHost.startAll). The real
// modules on the real embedded store, in process.
import 'reflect-metadata';
import type { INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { CommandBus } from '@nestjs/cqrs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppModule } from '../../apps/server/src/app.module.js';
import { ApplyConfigurationCommand, parseOrgConfig } from '#warden/catalog';
import type { RecordedEvent } from '#warden/kernel';
import { loadConfig } from '#warden/platform';
import { AggregateStore, openStorage, ProjectionHost, type Storage } from '#warden/storage';
import { SubmitReportCommand } from '../../libs/ingestion/src/commands/submit-report/submit-report.command.js';
import { JobEnqueuer } from '../../libs/review/src/enqueue/job-enqueuer.js';
import type { ReviewJobOpened } from '#warden/review/contracts';
import { reviewJobStream } from '../../libs/review/src/domain/review.streams.js';
import { spamReportingOrg } from '../support/config-files.js';
import { jobDecision, reportRequest } from '../support/review-events.js';
import { waitFor } from '../support/wait-for.js';
import { freshDataDir } from '../support/warden-process.js';

const CONFIG = spamReportingOrg({ id: 'later', name: 'Later' });

const context = { orgId: 'acme', correlationId: 'test', actor: 'test' };

const report = (itemId: string) => ({
  reporter: { kind: 'user', id: 'r1', typeId: 'user' },
  reportedAt: '2026-11-23T12:00:00Z',
  reportedItem: { id: itemId, typeId: 'post', data: { text: `about ${itemId}` } },
  reportedForReason: { policyId: 'spam', reason: `${itemId} is spam` },
});

/** The application on a data directory, as a worker composes it (its reactors started by hand). */
async function boot(dataDir: string) {
  const config = loadConfig({ WARDEN_DATA_DIR: dataDir, WARDEN_LOG_LEVEL: 'silent' });
  const storage = await openStorage(config);
  const app = await NestFactory.createApplicationContext(AppModule.forRoot(config, storage, { background: false }), { logger: false });
  return { app, storage };
}

async function shutDown(running: { app: INestApplicationContext; storage: Storage } | undefined) {
  await running?.app.get(ProjectionHost).stopAll();
  await running?.app.close();
  await running?.storage.close();
}

async function configure(app: INestApplicationContext) {
  const parsed = parseOrgConfig(CONFIG, { format: 'yaml', env: {}, readHashesFile: () => '' });
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.problems));
  await app.get(CommandBus).execute(new ApplyConfigurationCommand(parsed.config, { prune: false, dryRun: false }, context));
}

describe('report-jobs on a fresh install, restarted before its first checkpoint', () => {
  let running: Awaited<ReturnType<typeof boot>> | undefined;
  afterAll(() => shutDown(running));

  it('opens the job of every report the engine routed meanwhile: its start, decided at the first start, is not inherited again', async () => {
    const dataDir = freshDataDir();
    // Given a first start of a fresh install (an empty log), stopped before report-jobs stored a checkpoint,
    running = await boot(dataDir);
    await running.app.get(ProjectionHost).startAll();
    await shutDown(running);
    // and reports the rules engine routed while report-jobs ran nowhere (its worker gone, its lease not yet taken over),
    running = await boot(dataDir);
    const { app, storage } = running;
    expect(await storage.readStore.checkpoint('report-jobs')).toBe(0);
    await configure(app);
    for (const item of ['p1', 'p2']) await app.get(CommandBus).execute(new SubmitReportCommand(report(item), context));
    // (twice: the second pass moves its checkpoint past the routes the first appended)
    await app.get(ProjectionHost).catchUp('report-routing');
    await app.get(CommandBus).execute(new SubmitReportCommand(report('p3'), context));
    await app.get(ProjectionHost).catchUp('report-routing');
    const routes = (await storage.events.readAll()).filter((e) => e.type === 'ReportRouted');
    expect(routes).toHaveLength(3);
    // The routing's checkpoint is past the first two routes (the third is appended after its last pass).
    expect(await storage.readStore.checkpoint('report-routing')).toBeGreaterThanOrEqual(routes.at(-2)!.position);
    // When report-jobs starts again,
    await app.get(ProjectionHost).startAll();
    // Then each becomes a job: it starts where it had started, not after the routing's checkpoint.
    const opened = await waitFor(async () => {
      const jobs = (await storage.events.readAll()).filter((e) => e.type === 'ReviewJobOpened');
      return jobs.length === 3 && jobs;
    }, 'every report’s job');
    expect(opened.map((e) => (e.data['item'] as { id: string }).id).sort()).toEqual(['p1', 'p2', 'p3']);
  });
});

describe('upgrade: reports routed by the rules engine', () => {
  let app: INestApplicationContext;
  let storage: Storage;

  beforeAll(async () => {
    ({ app, storage } = await boot(freshDataDir()));
    await configure(app);
  });
  afterAll(() => shutDown({ app, storage }));

  const all = () => storage.events.readAll();
  const ofType = async <T extends RecordedEvent>(type: string) => (await all()).filter((e) => e.type === type) as T[];

  it('routes once what the old release had not routed, recreates once the transform it had not handled, and nothing it had', async () => {
    // Given a report the old release routed: its job opened by review itself, no ReportRouted.
    const { reportId: routedBefore } = await app.get(CommandBus).execute(new SubmitReportCommand(report('p1'), context));
    const item = { id: 'p1', typeId: 'post', typeName: 'Post' };
    const old = await app.get(JobEnqueuer).enqueue(context, {
      queueId: 'spam',
      item,
      request: reportRequest(routedBefore, {
        at: '2026-11-23T12:00:01.000Z',
        report: {
          reportId: routedBefore,
          reporter: { kind: 'user', id: 'r1', typeId: 'user' },
          reportedAt: '2026-11-23T12:00:00Z',
          hasReason: true,
          policyId: 'spam',
          csam: false,
        },
        policies: [{ id: 'spam', name: 'Spam', penalty: 'LOW' }],
        routedBy: { id: 'spam-reports', name: 'Spam reports' },
      }),
    });
    // and its reactor's checkpoint there (past everything it had handled),
    const handledUpTo = (await all()).at(-1)!.position;
    await storage.readStore.commit([], { projection: 'report-routing', from: 0, to: handledUpTo });
    // then what it had not handled when it stopped: a moderator's transform of that job, and a new report.
    const transform = jobDecision(old.jobId, 'TRANSFORM_JOB_AND_RECREATE_IN_QUEUE', 'later', 'dec-upgrade');
    await app.get(AggregateStore).record(reviewJobStream('acme', old.jobId), [transform], context, 'any');
    const { reportId: routedAfter } = await app.get(CommandBus).execute(new SubmitReportCommand(report('p2'), context));

    // When the new release's reactors start, as a worker starts them.
    await app.get(ProjectionHost).startAll();

    // Then the new report is routed and becomes a job, the transform is carried out,
    const opened = await waitFor(async () => {
      const jobs = await ofType<RecordedEvent & ReviewJobOpened>('ReviewJobOpened');
      const inLater = jobs.find((e) => e.data.queueId === 'later');
      const forP2 = jobs.find((e) => e.data.item.id === 'p2');
      return inLater && forP2 && { inLater, forP2 };
    }, 'the new report’s job and the recreated one');
    expect(opened.forP2.data).toMatchObject({ queueId: 'spam', request: { requestId: routedAfter, routedBy: { id: 'spam-reports' } } });
    expect(opened.inLater.data.request).toMatchObject({ requestId: 'dec-upgrade', source: 'MRT_JOB', fromJobId: old.jobId });
    await app.get(ProjectionHost).catchUp('report-routing');
    await app.get(ProjectionHost).catchUp('report-jobs');
    // and each once: the report the old release had routed is not routed again.
    const routed = await ofType<RecordedEvent & { data: { reportId: string } }>('ReportRouted');
    expect(routed.map((e) => e.data.reportId)).toEqual([routedAfter]);
    const jobs = await ofType<RecordedEvent & ReviewJobOpened>('ReviewJobOpened');
    expect(jobs.map((e) => [e.data.item.id, e.data.queueId]).sort()).toEqual([
      ['p1', 'later'],
      ['p1', 'spam'],
      ['p2', 'spam'],
    ]);
    expect(await ofType('ReviewJobMerged')).toEqual([]);
  });
});
