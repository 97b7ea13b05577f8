// Human review (issue 13): reports accepted and routed per second, with an api process and a
// worker and with one process; claim latency and claims per second with 1,000 and with 100,000
// pending jobs (a claim must not slow down as the queue grows); decisions per second end to end
// (decision → signed callback delivered to a receiver).
// Usage: node bench/review.mjs [pending jobs for the large queue, default 100000] [claims per run, default 300]
import { spawnSync } from 'node:child_process';
import { createServer } from 'node:http';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import Database from 'better-sqlite3';
import { serverRoles } from './support/server-roles.mjs';

const LARGE = Number(process.argv[2] ?? 100_000);
const CLAIMS = Number(process.argv[3] ?? 300);
const SMALL = 1_000;
const ONE_PROCESS_REPORTS = 10_000;
/**
 * Reports are sent over this many connections (a platform's request handlers at once): 32, where a
 * request's own round trip (two synced commits) limits the rate, and 128, enough to keep the
 * server busy, so that the rate is what the server can do. The p99 latency of each is in the table.
 */
const CONNECTIONS = [32, 128];
const port = 44000 + Math.floor(Math.random() * 1000);
const url = `http://127.0.0.1:${port}`;
const dir = mkdtempSync(join(tmpdir(), 'warden-bench-review-'));
const env = {
  ...process.env,
  HOST: '127.0.0.1',
  WARDEN_LOG_LEVEL: 'warn',
  WARDEN_DATA_DIR: dir,
  WARDEN_PUBLIC_URL: url,
  WARDEN_OUTBOUND_ALLOWLIST: '127.0.0.0/8',
  WARDEN_RATE_LIMIT_PER_SECOND: '1000000',
  WARDEN_RATE_LIMIT_BURST: '10000000',
};
const PASSWORD = 'correct horse battery staple';

// A receiver that counts callbacks and notes when the last one arrived.
let callbacks = 0;
let lastCallbackAt = 0;
const receiver = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    callbacks++;
    lastCallbackAt = performance.now();
    res.writeHead(200).end();
  });
});
await new Promise((r) => receiver.listen(0, '127.0.0.1', r));
const receiverUrl = `http://127.0.0.1:${receiver.address().port}`;

const config = `
org: { id: bench, name: Bench }
itemTypes:
  - { id: post, name: Post, kind: CONTENT, fields: [{ name: text, type: STRING, required: true }] }
  - { id: user, name: User, kind: USER, fields: [{ name: name, type: STRING }] }
policies:
  - { id: spam, name: Spam, penalty: LOW }
actions:
  - { id: remove, name: Remove, kind: CUSTOMER_DEFINED_ACTION, itemTypeIds: [post], callback: { url: ${receiverUrl}/hooks } }
queues:
  - { id: default, name: Default, isDefault: true }
  - { id: small, name: Small }
routingRules:
  - id: to-small
    name: To small
    queueId: small
    conditionSet:
      conjunction: AND
      conditions:
        - { input: { builtin: REPORT_REASON }, signal: { type: TEXT_CONTAINS, args: { terms: [small] } }, comparator: EQUALS, value: true }
`;
const configFile = join(dir, 'bench.yaml');
writeFileSync(configFile, config);

function cli(args, input) {
  const r = spawnSync(process.execPath, ['dist/apps/server/bundle/cli.js', ...args], { env, input, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${args.join(' ')}: ${r.stderr}`);
  return r.stdout.trim().split('\n').pop();
}

const percentile = (values, p) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
};
const round = (n) => Math.round(n * 100) / 100;

async function login(email) {
  const response = await fetch(`${url}/api/console/v1/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, password: PASSWORD }),
  });
  if (response.status !== 200) throw new Error(`login ${response.status}: ${await response.text()}`);
  return { cookie: (response.headers.get('set-cookie') ?? '').split(';')[0], csrf: (await response.json()).csrfToken };
}

const consoleCall = (session, method, path, body) =>
  fetch(url + path, {
    method,
    headers: { cookie: session.cookie, 'x-csrf-token': session.csrf, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });

let key;
let reportSeq = 0;
/** One report per request, each of a new item; reporters repeat (1,000 of them). */
function reportBody(reason) {
  const n = reportSeq++;
  return JSON.stringify({
    reporter: { kind: 'user', id: `r${n % 1000}`, typeId: 'user' },
    reportedAt: new Date().toISOString(),
    reportedItem: { id: `item-${n}`, typeId: 'post', data: { text: `reported post ${n}` } },
    reportedForReason: { reason },
  });
}

/**
 * Sends `count` reports over `connections` connections (autocannon: a load generator cheap enough
 * not to take the server's cores); returns the seconds it took to have them all accepted, and the
 * p99 latency.
 */
async function reports(count, reason, connections) {
  const started = performance.now();
  const result = await autocannon({
    url,
    connections,
    amount: count,
    // autocannon notices that `amount` requests are done only on its sampling tick (1 s by default),
    // which rounded every run up to whole seconds: 10,000 reports accepted in 6.1 s counted as 7.
    sampleInt: 20,
    requests: [
      {
        method: 'POST',
        path: '/api/v1/report',
        headers: { 'x-api-key': key, 'content-type': 'application/json' },
        setupRequest: (request) => ({ ...request, body: reportBody(reason) }),
      },
    ],
  });
  if (result.non2xx || result.errors || result['2xx'] !== count) {
    throw new Error(`reports: ${result['2xx']} of ${count} answered 2xx (${result.non2xx} non-2xx, ${result.errors} errors)`);
  }
  return { seconds: (performance.now() - started) / 1000, p99_ms: result.latency.p99 };
}

/**
 * Resolves once the process has had nothing to do for half a second (under 5 ms of CPU in each
 * 100 ms, from /proc): every projection and reactor, the audit trail's included, has caught up.
 * Their checkpoints cannot tell: a projection of a few event types moves its checkpoint over the
 * events it skips only now and then. The time returned is that of the first quiet sample.
 */
async function settled(pid) {
  const cpuMs = () => {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  };
  const deadline = Date.now() + 600_000;
  let last = cpuMs();
  let quietSince;
  let quiet = 0;
  while (quiet < 5) {
    if (Date.now() > deadline) throw new Error('the worker still busy after 10 minutes');
    await new Promise((r) => setTimeout(r, 100));
    const now = cpuMs();
    if (now - last < 5) {
      if (quiet++ === 0) quietSince = performance.now();
    } else quiet = 0;
    last = now;
  }
  return quietSince;
}

/**
 * When reports are routed, read from the data files themselves (read-only connections on the log's
 * file and the read models', as bench/enforcement.mjs does): the rules engine's report-routing
 * reactor's checkpoint past the last report (every report is routed), review's report-jobs
 * reactor's past the last route (every job is opened), then the review-jobs projection's
 * checkpoint past the last job opened (the jobs are in their queues). Point queries a poll: polling GET /queues instead cost the api what
 * it measures (each call catches the projection up there and counts the pending jobs, 100 ms at
 * 100,000 pending), and scanning the log for the jobs cost the bench a second of CPU per 100,000.
 */
function routedWatch(dataDir) {
  const db = new Database(join(dataDir, 'warden.db'), { readonly: true });
  const readModels = new Database(join(dataDir, 'read-models.db'), { readonly: true });
  // Backwards from the head: the newest events are read, a few rows.
  const last = db.prepare('SELECT position FROM events WHERE type = ? ORDER BY position DESC LIMIT 1');
  const checkpoint = readModels.prepare('SELECT position FROM projection_checkpoints WHERE projection = ?');
  const until = async (check, what) => {
    const deadline = Date.now() + 600_000;
    while (!check()) {
      if (Date.now() > deadline) throw new Error(`not routed within 10 minutes: ${what}`);
      await new Promise((r) => setTimeout(r, 10));
    }
  };
  const at = (projection) => checkpoint.get(projection)?.position ?? 0;
  return {
    async routed() {
      const lastReport = last.get('ReportSubmitted')?.position ?? 0;
      await until(() => at('report-routing') >= lastReport, 'the report-routing reactor behind the last report');
      const lastRouted = last.get('ReportRouted')?.position ?? 0;
      await until(() => at('report-jobs') >= lastRouted, 'the report-jobs reactor behind the last report routed');
      const lastJob = last.get('ReviewJobOpened')?.position ?? 0;
      await until(() => at('review-jobs') >= lastJob, 'the review-jobs projection behind the last job opened');
    },
    close: () => {
      db.close();
      readModels.close();
    },
  };
}

async function queue(session, id) {
  const response = await consoleCall(session, 'GET', '/api/console/v1/queues');
  return (await response.json()).queues.find((q) => q.id === id);
}

async function waitPending(session, id, count) {
  for (;;) {
    if ((await queue(session, id)).pending >= count) return;
    await new Promise((r) => setTimeout(r, 50));
  }
}

const WARM_UP_CLAIMS = 20;

/**
 * Claims `count` jobs one after another (deciding IGNORE on each), timing every claim; the first
 * WARM_UP_CLAIMS are not timed (compilation, caches).
 */
async function claimRun(session, id, count) {
  const times = [];
  let started = performance.now();
  for (let i = -WARM_UP_CLAIMS; i < count; i++) {
    if (i === 0) started = performance.now();
    const t0 = performance.now();
    const response = await consoleCall(session, 'POST', `/api/console/v1/queues/${id}/claim`);
    if (i >= 0) times.push(performance.now() - t0);
    if (response.status !== 200) throw new Error(`claim ${response.status}: ${await response.text()}`);
    const { job, lock } = await response.json();
    const decided = await consoleCall(session, 'POST', `/api/console/v1/jobs/${job.jobId}/decision`, { lockToken: lock.token, type: 'IGNORE' });
    if (decided.status !== 200) throw new Error(`decision ${decided.status}: ${await decided.text()}`);
  }
  return { claims_per_s: round(count / ((performance.now() - started) / 1000)), p50_ms: round(percentile(times, 50)), p99_ms: round(percentile(times, 99)) };
}

/**
 * Latency of the lists a moderator and a manager open, with the large queue filled: the queue list
 * (GET /queues, 30 times) and a late page of the managers' job list with an age filter (10 times).
 */
async function listings(session) {
  const timed = async (path, times) => {
    const ms = [];
    for (let i = 0; i < times; i++) {
      const t0 = performance.now();
      const response = await consoleCall(session, 'GET', path);
      if (response.status !== 200) throw new Error(`${path}: ${response.status} ${await response.text()}`);
      await response.arrayBuffer();
      ms.push(performance.now() - t0);
    }
    return { p50_ms: round(percentile(ms, 50)), max_ms: round(Math.max(...ms)) };
  };
  const openedBefore = encodeURIComponent(new Date().toISOString());
  return [
    { request: 'GET /api/console/v1/queues', ...(await timed('/api/console/v1/queues', 30)) },
    {
      request: 'GET /api/console/v1/jobs (openedBefore, page 100 of 50)',
      ...(await timed(`/api/console/v1/jobs?queueId=default&openedBefore=${openedBefore}&page=100`, 10)),
    },
  ];
}

const servers = serverRoles(env);
try {
  cli(['apply', configFile]);
  key = cli(['api-key', 'create', '--org', 'bench']);
  const emails = Array.from({ length: 4 }, (_, i) => `mod-${i}@bench.example`);
  for (const email of emails) {
    cli(['user', 'create', '--org', 'bench', '--email', email, '--role', 'ADMIN']);
    cli(['user', 'set-password', '--org', 'bench', '--email', email], `${PASSWORD}\n`);
  }
  const reportRows = [];
  const watch = routedWatch(dir);
  /** Sends `count` reports of new items bound for the default queue; the row of accepted and routed per second. */
  async function reportRun(layout, count, connections, busy) {
    const before = (await queue(sessions[0], 'default')).pending;
    const routedFrom = performance.now();
    const accepted = await reports(count, 'abuse', connections);
    await watch.routed();
    const routedSeconds = (performance.now() - routedFrom) / 1000;
    // The worker's whole work, not only routing: the audit trail's projections may still be
    // catching up (the next measurement starts only once they have).
    const settledSeconds = ((await settled(busy.pid)) - routedFrom) / 1000;
    // Not timed: every report is a pending job of its own in the default queue.
    const pending = (await queue(sessions[0], 'default')).pending;
    if (pending !== before + count) throw new Error(`${pending - before} jobs pending for ${count} reports`);
    reportRows.push({
      layout,
      connections,
      reports: count,
      accepted_per_s: Math.round(count / accepted.seconds),
      routed_per_s: Math.round(count / routedSeconds),
      settled_per_s: Math.round(count / settledSeconds),
      p99_ms: accepted.p99_ms,
    });
  }

  // An api process and a worker on one data directory (operations.md's layout when accepting must
  // keep a core of its own): fill the default queue, then 1,000 pending in the small queue.
  let api = await servers.start('api', port, dir);
  let worker = await servers.start('worker', port + 1, dir);
  let sessions = await Promise.all(emails.map(login));
  // The large queue: most of it at full load, then a run over fewer connections.
  const largeQueue = LARGE + CLAIMS + WARM_UP_CLAIMS;
  const fewer = Math.min(ONE_PROCESS_REPORTS, Math.floor(largeQueue / 2));
  await reportRun('api + worker', largeQueue - fewer, CONNECTIONS[1], worker);
  await reportRun('api + worker', fewer, CONNECTIONS[0], worker);
  await reports(SMALL + CLAIMS + WARM_UP_CLAIMS, 'small queue', CONNECTIONS[0]);
  await waitPending(sessions[0], 'small', SMALL + CLAIMS + WARM_UP_CLAIMS);
  // Claims and lists are timed on a worker with nothing left to catch up.
  await settled(worker.pid);
  const listRows = await listings(sessions[0]);
  const smallRun = await claimRun(sessions[0], 'small', CLAIMS);
  const largeRun = await claimRun(sessions[0], 'default', CLAIMS);
  await servers.stop(api);
  await servers.stop(worker);

  // One process (WARDEN_ROLE=all, as `npm start` runs it) on the same data directory.
  api = await servers.start('all', port, dir);
  sessions = await Promise.all(emails.map(login));
  for (const connections of CONNECTIONS) await reportRun('one process (all)', ONE_PROCESS_REPORTS, connections, api);
  watch.close();

  console.log('Reports (POST /api/v1/report, each of a new item)');
  console.table(reportRows);
  console.log(`Lists with ${LARGE} pending (api + worker, idle): the moderators' queue list, the managers' job list`);
  console.table(listRows);
  console.log('Claim next job (claim → IGNORE decision, one moderator; latency of the claim request; api + worker)');
  console.table([
    { pending: SMALL, ...smallRun },
    { pending: LARGE, ...largeRun },
  ]);

  // Decisions end to end: 4 moderators claim and decide CUSTOM_ACTION; until the last callback is delivered.
  const DECISIONS = 400;
  const before = callbacks;
  const started = performance.now();
  let decided = 0;
  await Promise.all(
    sessions.map(async (session) => {
      while (decided < DECISIONS) {
        decided++;
        const response = await consoleCall(session, 'POST', '/api/console/v1/queues/default/claim');
        const { job, lock } = await response.json();
        const d = await consoleCall(session, 'POST', `/api/console/v1/jobs/${job.jobId}/decision`, {
          lockToken: lock.token,
          type: 'CUSTOM_ACTION',
          actionIds: ['remove'],
          policyIds: ['spam'],
          reason: 'bench',
        });
        if (d.status !== 200) throw new Error(`decision ${d.status}: ${await d.text()}`);
      }
    }),
  );
  while (callbacks - before < decided) await new Promise((r) => setTimeout(r, 10));
  const seconds = (lastCallbackAt - started) / 1000;
  console.log('Decisions end to end (one process; 4 moderators; CUSTOM_ACTION → signed callback delivered)');
  console.table([{ decisions: decided, decisions_per_s: Math.round(decided / seconds), seconds: round(seconds) }]);
} finally {
  await servers.stopAll();
  receiver.close();
  rmSync(dir, { recursive: true, force: true });
}
