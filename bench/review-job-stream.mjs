// A mass-reported item (issue 29, "the cost of one operation must not grow with history"): one
// review job into which N reports were merged. In-process, through the built AggregateStore and
// review-job decider (dist/), on a SQLite event store of its own; nothing else runs.
//
// Usage (after `npm run build`): node bench/review-job-stream.mjs [--sizes=1000,5000,20000] [--merges=200]
//
// For each size N, the job's stream is filled behind the store's back (one ReviewJobOpened, then
// N − 1 ReviewJobMerged, each one report with a reason), then:
//   - cold read: a fresh store reads the job's state with no snapshot yet (what a process does
//     the first time it meets a job filled by another release; later ones start from a snapshot);
//   - snapshot read: a fresh store reads it from the snapshot the merges left (every 100 events);
//   - merge: `merges` further reports merged one by one through AggregateStore.handle on the
//     cached state (what the report-jobs reactor does for each new report), p50 / p99 / max;
//   - every report: the merged reports with their reasons, the whole history read and listed
//     (jobRequestsOf, mergedReports), as the job view and a decision did before they read the newest;
//   - newest: what the job view and a decision read now (JobReports.newest, as of the state's
//     revision): the newest 1,000 reports, read backwards.
// Prints one markdown table. Not a test: nothing here fails the build.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSqlite, SqliteEventStore, SqliteSnapshotStore } from '../dist/libs/eventstore/src/index.js';
import { randomIds, systemClock } from '../dist/libs/kernel/src/index.js';
import { mergedReports } from '../dist/libs/review/src/domain/decision-effects.js';
import { jobRequestsOf } from '../dist/libs/review/src/domain/job-requests.js';
import { reviewJobDecider } from '../dist/libs/review/src/domain/review-job.decider.js';
import { reviewJobStream } from '../dist/libs/review/src/domain/review.streams.js';
import { JOB_REPORTS_LISTED, JobReports } from '../dist/libs/review/src/job-reports.js';
import { AggregateStore } from '../dist/libs/storage/src/aggregate-store.js';

const option = (name, fallback) => process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback;
const SIZES = option('sizes', '1000,5000,20000').split(',').map(Number);
const MERGES = Number(option('merges', '200'));
const ORG = 'bench';
const APPEND_CHUNK = 1_000;
const ITEM = { id: 'reported-post', typeId: 'post', typeName: 'Post' };
const context = { orgId: ORG, correlationId: 'bench-review-job', causationId: null, actor: 'bench' };

const dir = mkdtempSync(join(tmpdir(), 'warden-bench-review-job-'));
const db = openSqlite(join(dir, 'warden.db'));
const events = new SqliteEventStore(db);
const storeOf = () => new AggregateStore(events, systemClock, randomIds, { snapshots: new SqliteSnapshotStore(db) });

/** The n-th report of the item, as the report-jobs reactor puts it into the job. */
function reportRequest(n, at) {
  const reportId = `report-${n}`;
  return {
    request: {
      requestId: reportId,
      source: 'REPORT',
      at,
      version: 0,
      report: { reportId, reporter: { kind: 'user', typeId: 'user', id: `reporter-${n}` }, reportedAt: at, hasReason: true, policyId: 'spam', csam: false },
      action: null,
      policies: [{ id: 'spam', name: 'Spam', penalty: 'LOW' }],
      routedBy: null,
      fromJobId: null,
    },
    reasons: { [reportId]: `reporter ${n} says this is spam` },
  };
}

function stamped(type, data, at) {
  return {
    id: randomIds.uuid(),
    type,
    data,
    metadata: { orgId: ORG, correlationId: 'bench-fill', causationId: null, actor: 'bench', occurredAt: at, schemaVersion: 1 },
  };
}

function filled(jobId, n, at) {
  const { request, reasons } = reportRequest(n, at);
  if (n === 0) {
    return stamped('ReviewJobOpened', { jobId, queueId: 'default', generation: 0, item: ITEM, request, carried: [], openedAt: at, reasons, subject: null }, at);
  }
  return stamped('ReviewJobMerged', { jobId, request, mergedAt: at, reasons, subject: null }, at);
}

const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
const ms = (value) => value.toFixed(value < 10 ? 2 : 0);
const rows = [];

for (const size of SIZES) {
  const jobId = `job-${size}`;
  const stream = reviewJobStream(ORG, jobId);
  const at = new Date(Date.now() - 60_000).toISOString();
  for (let from = 0; from < size; from += APPEND_CHUNK) {
    const chunk = Array.from({ length: Math.min(APPEND_CHUNK, size - from) }, (_, i) => filled(jobId, from + i, at));
    await events.append(stream, chunk, from === 0 ? 'no_stream' : from - 1);
  }
  db.pragma('wal_checkpoint(TRUNCATE)');

  const store = storeOf();
  let started = performance.now();
  const cold = await store.state(stream, reviewJobDecider);
  const coldMs = performance.now() - started;
  if (cold.requestCount !== size) throw new Error(`the job folded ${cold.requestCount} requests, expected ${size}`);

  const times = [];
  for (let i = 0; i < MERGES; i++) {
    const now = new Date().toISOString();
    const { request, reasons } = reportRequest(size + i, now);
    started = performance.now();
    const handled = await store.handle(
      stream,
      reviewJobDecider,
      { type: 'Enqueue', jobId, queueId: 'default', generation: 0, item: ITEM, request, carried: [], carriedFrom: null, reasons, subject: null, now },
      context,
    );
    times.push(performance.now() - started);
    if (handled.events.length !== 1) throw new Error(`merge ${i} decided ${handled.events.length} events, expected 1`);
  }
  times.sort((a, b) => a - b);

  // The snapshots are written beside the commands: a moment for the last one to land.
  await new Promise((resolve) => setTimeout(resolve, 200));
  started = performance.now();
  await storeOf().state(stream, reviewJobDecider);
  const snapshotMs = performance.now() - started;

  started = performance.now();
  const { state, events: history } = await store.load(stream, reviewJobDecider);
  const reports = mergedReports(jobRequestsOf(history, state.requestCount), {});
  const reportsMs = performance.now() - started;
  if (reports.length !== size + MERGES || reports.at(-1).reason === null)
    throw new Error(`${reports.length} merged reports listed, expected ${size + MERGES} with reasons`);

  // What the job view and a decision read: the newest reports as of the state's revision.
  started = performance.now();
  const jobReports = new JobReports(store, events);
  const { revision } = await store.stateAt(stream, reviewJobDecider);
  const newest = jobReports.reportsOf(await jobReports.newest(ORG, jobId, { through: revision }));
  const newestMs = performance.now() - started;
  const expected = Math.min(JOB_REPORTS_LISTED, size + MERGES);
  if (newest.length !== expected || newest.at(-1).reportId !== `report-${size + MERGES - 1}` || newest.at(-1).reason === null)
    throw new Error(`${newest.length} newest reports listed, expected ${expected} ending with the last merged`);

  rows.push(
    `| ${size.toLocaleString('en')} | ${ms(coldMs)} | ${ms(snapshotMs)} | ${ms(percentile(times, 50))} | ${ms(percentile(times, 99))} | ${ms(times.at(-1))} | ${ms(reportsMs)} | ${ms(newestMs)} |`,
  );
  console.error(`size ${size} done`);
}

console.log(`\nOne review job with N merged reports (${MERGES} merges timed per size; ms)\n`);
console.log(
  '| reports merged (N) | cold read (fold) | read from a snapshot | merge p50 | merge p99 | merge max | every report listed (whole history read) | newest 1,000 listed (job view, decision) |',
);
console.log('|---|---|---|---|---|---|---|---|');
for (const row of rows) console.log(row);
await events.close();
db.close();
rmSync(dir, { recursive: true, force: true });
