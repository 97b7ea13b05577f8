// The report → job path reads the organization's configuration once per pass and passes it down
// (docs/architecture.md, "Main flows"): counted at the query bus, the port every module reads the
// catalog through, with the real modules on the real embedded store; no worker runs, so each pass
// is driven by hand and counted alone.
import 'reflect-metadata';
import type { INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { AppModule } from '../apps/server/src/app.module.js';
import { ApplyConfigurationCommand, parseOrgConfig } from '#warden/catalog';
import { loadConfig } from '#warden/platform';
import { ClaimNextJobCommand } from '../libs/review/src/commands/claim-next-job/claim-next-job.command.js';
import { DecideJobCommand } from '../libs/review/src/commands/decide-job/decide-job.command.js';
import { SubmitReportCommand } from '../libs/ingestion/src/commands/submit-report/submit-report.command.js';
import { openStorage, ProjectionHost, type Storage } from '#warden/storage';
import { spamReportingOrg } from './support/config-files.js';
import { freshDataDir } from './support/warden-process.js';

const CONFIG = spamReportingOrg(
  { id: 'texty', name: 'Texty' },
  `  - id: by-text
    name: By text
    queueId: texty
    itemTypeIds: [post]
    conditionSet:
      conjunction: AND
      conditions:
        - { input: { field: text }, signal: { type: TEXT_CONTAINS, args: { terms: [route-me] } }, comparator: EQUALS, value: true }
  - id: reported-users
    name: Users reported again
    queueId: spam
    itemTypeIds: [user]
    conditionSet:
      conjunction: AND
      conditions:
        - { input: { builtin: REPORT_COUNT }, comparator: GTE, value: 2 }
`,
);

/** The catalog's queries (libs/catalog/src/index.ts), by name: whichever a module asks, it is a read of the catalog. */
const CATALOG_QUERIES = new Set(['GetLiveCatalogQuery', 'GetLiveEntitiesQuery', 'GetEverEntitiesQuery', 'GetCatalogSettingsQuery']);

const context = { orgId: 'acme', correlationId: 'test', actor: 'test' };

const report = (reportedItem: Record<string, unknown>, policyId?: string) => ({
  reporter: { kind: 'user', id: 'r1', typeId: 'user' },
  reportedAt: '2026-11-23T12:00:00Z',
  reportedItem,
  ...(policyId ? { reportedForReason: { policyId } } : {}),
});

describe('report → job: the catalog read once per pass', () => {
  let app: INestApplicationContext;
  let storage: Storage;
  let reads: string[] = [];

  beforeAll(async () => {
    const config = loadConfig({ WARDEN_DATA_DIR: freshDataDir(), WARDEN_LOG_LEVEL: 'silent' });
    storage = await openStorage(config);
    app = await NestFactory.createApplicationContext(AppModule.forRoot(config, storage, { background: false }), { logger: false });
    const parsed = parseOrgConfig(CONFIG, { format: 'yaml', env: {}, readHashesFile: () => '' });
    if (!parsed.ok) throw new Error(JSON.stringify(parsed.problems));
    await app.get(CommandBus).execute(new ApplyConfigurationCommand(parsed.config, { prune: false, dryRun: false }, context));
    const bus = app.get(QueryBus);
    const execute = bus.execute.bind(bus);
    bus.execute = ((query: object) => {
      if (CATALOG_QUERIES.has(query.constructor.name)) reads.push(query.constructor.name);
      return execute(query as never);
    }) as typeof bus.execute;
  });
  afterAll(async () => {
    await app?.close();
    await storage?.close();
  });
  beforeEach(() => {
    reads = [];
  });

  /**
   * The report accepted (ingestion: the HTTP request's pass), routed (the rules engine: the
   * worker's pass), then made a job (review, from the route alone): the catalog reads of each, and
   * the job.
   */
  async function reportAndRoute(body: Record<string, unknown>) {
    await app.get(CommandBus).execute(new SubmitReportCommand(body, context));
    const accepted = reads.splice(0);
    await app.get(ProjectionHost).catchUp('report-routing');
    const routed = reads.splice(0);
    await app.get(ProjectionHost).catchUp('report-jobs');
    expect(reads.splice(0)).toEqual([]);
    const opened = (await storage.events.readAll()).filter((e) => e.type === 'ReviewJobOpened' || e.type === 'ReviewJobMerged').at(-1)!;
    return {
      accepted,
      routed,
      job: opened.data as { queueId: string; item: { typeName: string }; request: { routedBy: { id: string } | null; policies: Array<{ name: string }> } },
    };
  }

  it('routes on the report inputs alone with one read at acceptance and one at routing; the job names policy and type from it', async () => {
    const { accepted, routed, job } = await reportAndRoute(report({ id: 'p1', typeId: 'post', data: { text: 'hello' } }, 'spam'));
    expect(accepted).toEqual(['GetLiveCatalogQuery']);
    expect(routed).toEqual(['GetLiveCatalogQuery']);
    expect(job.queueId).toBe('spam');
    expect(job.request.routedBy?.id).toBe('spam-reports');
    expect(job.request.policies.map((p) => p.name)).toEqual(['Spam']);
    expect(job.item.typeName).toBe('Post');
  });

  it('routes on the item content, read back from the log, with no further catalog read', async () => {
    const { accepted, routed, job } = await reportAndRoute(report({ id: 'p2', typeId: 'post', data: { text: 'please route-me now' } }));
    expect(accepted).toEqual(['GetLiveCatalogQuery']);
    expect(routed).toEqual(['GetLiveCatalogQuery']);
    expect(job.queueId).toBe('texty');
    expect(job.request.routedBy?.id).toBe('by-text');
  });

  it('routes on the count of reports with no further catalog read', async () => {
    const user = { id: 'u1', typeId: 'user', data: { name: 'Troll' } };
    const first = await reportAndRoute(report(user));
    expect(first.job.request.routedBy).toBeNull();
    const second = await reportAndRoute(report(user));
    expect(second.accepted).toEqual(['GetLiveCatalogQuery']);
    expect(second.routed).toEqual(['GetLiveCatalogQuery']);
    expect(second.job.queueId).toBe('spam');
    expect(second.job.item.typeName).toBe('Member');
  });

  it('decides a job with one read of the catalog beside the settings', async () => {
    await reportAndRoute(report({ id: 'p3', typeId: 'post', data: { text: 'to decide' } }, 'spam'));
    const moderator = { userId: 'm1', email: 'm1@example.com', permissions: ['VIEW_MRT', 'DECIDE_MRT'] as const };
    const claimed = await app.get(CommandBus).execute(new ClaimNextJobCommand('spam', moderator, context));
    reads = [];
    const decided = await app.get(CommandBus).execute(new DecideJobCommand(claimed!.jobId, claimed!.lock.token, { type: 'IGNORE' }, moderator, context));
    expect(decided.type).toBe('IGNORE');
    expect(reads).toEqual(['GetLiveCatalogQuery', 'GetCatalogSettingsQuery']);
  });
});
