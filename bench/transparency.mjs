// DSA transparency (issue 33, docs/transparency.md). Not a test: prints a table.
// Usage: node bench/transparency.mjs [decisions for the projection, default 20000] (after npm run build)
//  1. statements/s derived: a log of published actions (rule actions, moderator decisions,
//     executed actions answering reports, strike thresholds) with their items, reports and appeals,
//     appended directly; the transparency projection catching up on it alone (the facts of every
//     statement and the per-day counters), then `warden transparency statements` rendering them
//     all with the DSA mapping and writing the NDJSON (CLI start-up included).
//  2. the report for 1,000,000 decisions over 365 days: the per-day counter documents written
//     straight into a data directory's read store (the report reads one document a day, so how
//     they came there does not change its cost), then the console route (a running server,
//     signed in) and `warden transparency report` timed over the whole year.
import { randomUUID } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSqlite, ProjectionRunner, SqliteEventStore } from '../dist/libs/eventstore/src/index.js';
import { SqliteReadStore } from '../dist/libs/readstore/src/index.js';
import { transparencyProjection } from '../dist/libs/transparency/src/projections/transparency.projection.js';
import { durationBucket } from '../dist/libs/transparency/src/domain/durations.js';
import { serverRoles } from './support/server-roles.mjs';

const DECISIONS = Number(process.argv[2] ?? 20_000);
const YEAR_DECISIONS = 1_000_000;
const DAYS = 365;
const ORG = 'bench';
const PASSWORD = 'correct horse battery staple';
const env = { ...process.env, HOST: '127.0.0.1', WARDEN_LOG_LEVEL: 'warn', WARDEN_RATE_LIMIT_PER_SECOND: '0' };
const round = (n) => Math.round(n).toLocaleString('en-US');
const DAY_MS = 86_400_000;
const isoDay = (t) => new Date(t).toISOString().slice(0, 10);

const CONFIG = `
org: { id: ${ORG}, name: Bench }
itemTypes:
  - id: post
    name: Post
    kind: CONTENT
    fields: [{ name: text, type: STRING }, { name: author, type: RELATED_ITEM, itemTypeIds: [user] }]
    roles: { creator: author }
    dsa: { contentType: [CONTENT_TYPE_TEXT] }
  - { id: user, name: User, kind: USER, fields: [{ name: name, type: STRING }], dsa: { contentType: [CONTENT_TYPE_OTHER], contentTypeOther: Account } }
  - { id: flagger, name: Flagger, kind: USER, fields: [{ name: name, type: STRING }] }
policies:
  - { id: spam, name: Spam, dsa: { category: STATEMENT_CATEGORY_SCAMS_AND_FRAUD, decisionGround: DECISION_GROUND_INCOMPATIBLE_CONTENT, incompatibleContentGround: "Terms 4.2", incompatibleContentExplanation: "Unsolicited commercial content." } }
  - { id: violence, name: Violence, dsa: { category: STATEMENT_CATEGORY_VIOLENCE, decisionGround: DECISION_GROUND_ILLEGAL_CONTENT, illegalContentLegalGround: "Code 131", illegalContentExplanation: "Glorifies violence." } }
actions:
  - { id: remove, name: Remove, kind: CUSTOMER_DEFINED_ACTION, itemTypeIds: [post], callback: { url: "http://127.0.0.1:9/hooks" }, dsa: { decisionVisibility: [DECISION_VISIBILITY_CONTENT_REMOVED] } }
  - { id: suspend, name: Suspend, kind: CUSTOMER_DEFINED_ACTION, itemTypeIds: [user], callback: { url: "http://127.0.0.1:9/hooks" }, dsa: { decisionAccount: DECISION_ACCOUNT_SUSPENDED, durationDays: 30, defaultPolicyId: violence } }
transparency:
  territorialScope: [EEA]
  trustedFlaggers: [flagger]
`;

function cli(dir, args, input) {
  const started = performance.now();
  const r = spawnSync(process.execPath, ['dist/apps/server/bundle/cli.js', ...args], { env: { ...env, WARDEN_DATA_DIR: dir }, encoding: 'utf8', input });
  const seconds = (performance.now() - started) / 1000;
  if (r.status !== 0 && !args.includes('--no-such-option')) throw new Error(`${args.join(' ')}: ${r.stdout}${r.stderr}`);
  return { seconds, stdout: r.stdout, stderr: r.stderr };
}

function prepare() {
  const dir = mkdtempSync(join(tmpdir(), 'warden-bench-transparency-'));
  writeFileSync(join(dir, 'org.yaml'), CONFIG);
  cli(dir, ['apply', join(dir, 'org.yaml')]);
  return dir;
}

function openDir(dir) {
  const db = openSqlite(join(dir, 'warden.db'), { synchronous: 'normal' });
  const rdb = openSqlite(join(dir, 'read-models.db'), { synchronous: 'normal' });
  return {
    db,
    rdb,
    events: new SqliteEventStore(db),
    reads: new SqliteReadStore(rdb),
    close: async (s) => {
      await s.events.close();
      db.close();
      rdb.close();
    },
  };
}

const meta = (at, orgId = ORG) => ({ orgId, correlationId: randomUUID(), causationId: null, actor: 'bench', occurredAt: at, schemaVersion: 1 });
const ev = (type, data, at) => ({ id: randomUUID(), type, data, metadata: meta(at) });

/** One decision's events, i-th of the log: its item, a report for a third of them, the action, an appeal for a tenth. */
function decisionEvents(i, base) {
  const at = (ms) => new Date(base + i * 10 + ms).toISOString();
  const item = { id: `p${i}`, typeId: 'post' };
  const out = [[`item-${ORG}:post:p${i}`, [ev('ItemSubmitted', { itemId: item.id, typeId: 'post', version: 1 }, at(0))]]];
  if (i % 3 === 0) {
    const reporter = i % 6 === 0 ? 'flagger' : 'user';
    out.push([
      `report-${ORG}:r${i}`,
      [
        ev(
          'ReportSubmitted',
          {
            reportId: `r${i}`,
            reporter: { kind: 'user', id: `u${i}`, typeId: reporter },
            reportedAt: at(1),
            reportedItem: { ...item, version: 1 },
            policyId: i % 2 ? 'spam' : 'violence',
          },
          at(1),
        ),
      ],
    ]);
  }
  const trigger = ['rule', 'decision', 'post-actions', 'rule', 'decision'][i % 5];
  const policies = [{ id: i % 2 ? 'spam' : 'violence', name: 'P' }];
  out.push([
    `item_evaluation-${ORG}:p${i}`,
    [
      ev(
        'ActionCallbackRequested',
        {
          deliveryId: `d${i}`,
          item: { ...item, typeName: 'Post' },
          action: { id: 'remove' },
          policies,
          rules: trigger === 'rule' ? [{ id: 'r', name: 'R' }] : [],
          custom: {},
          creator: null,
          trigger,
        },
        at(5),
      ),
    ],
  ]);
  if (i % 50 === 0) {
    out.push([
      `user_strikes-${ORG}:u${i}`,
      [
        ev(
          'ActionCallbackRequested',
          {
            deliveryId: `s${i}`,
            item: { id: `author-${i}`, typeId: 'user', typeName: 'User' },
            action: { id: 'suspend' },
            policies: [],
            rules: [],
            custom: {},
            creator: null,
            trigger: 'strike-threshold',
          },
          at(6),
        ),
      ],
    ]);
  }
  if (i % 10 === 0) {
    out.push([
      `appeal-${ORG}:a${i}`,
      [
        ev('AppealSubmitted', { appealId: `a${i}`, appealedAt: at(7) }, at(7)),
        ev(
          'AppealDecided',
          { appealId: `a${i}`, decision: i % 20 ? 'REJECT' : 'ACCEPT', jobId: 'j', decisionId: 'x', decidedBy: { userId: 'm' }, decidedAt: at(9) },
          at(9),
        ),
      ],
    ]);
  }
  return out;
}

async function projectionThroughput() {
  const dir = prepare();
  const s = openDir(dir);
  const base = Date.now() - DECISIONS * 10 - 60_000;
  let events = 0;
  let statements = 0;
  let next = 0;
  await Promise.all(
    Array.from({ length: 32 }, async () => {
      for (;;) {
        const i = next++;
        if (i >= DECISIONS) return;
        for (const [stream, batch] of decisionEvents(i, base)) {
          await s.events.append(stream, batch, 'any');
          events += batch.length;
          statements += batch.filter((e) => e.type === 'ActionCallbackRequested').length;
        }
      }
    }),
  );
  const started = performance.now();
  await new ProjectionRunner(transparencyProjection, s.events, s.reads).catchUp();
  const seconds = (performance.now() - started) / 1000;
  await s.close(s);
  const from = isoDay(base);
  const to = isoDay(Date.now());
  const out = join(dir, 'sor.ndjson');
  const rendered = cli(dir, ['transparency', 'statements', '--org', ORG, '--from', from, '--to', to, '--out', out]);
  const lines = readFileSync(out, 'utf8').trimEnd().split('\n').length;
  if (lines !== statements) {
    console.error(dir);
    throw new Error(`wrote ${lines} statements of ${statements}: ${rendered.stderr.slice(0, 500)}`);
  }
  rmSync(dir, { recursive: true, force: true });
  return { events, statements, seconds, rendered };
}

/** A year of counters: 1,000,000 decisions spread over 365 days, each day with its histograms. */
function dayDocs(lastDay) {
  const perDay = Math.floor(YEAR_DECISIONS / DAYS);
  let left = YEAR_DECISIONS;
  const docs = [];
  let seed = 1;
  const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  for (let d = DAYS - 1; d >= 0; d--) {
    const day = isoDay(Date.parse(`${lastDay}T00:00:00Z`) - d * DAY_MS);
    const n = d === 0 ? left : perDay;
    left -= n;
    const actions = {};
    const keys = [];
    for (const action of ['remove', 'suspend'])
      for (const policies of ['spam', 'violence', 'spam,violence', ''])
        for (const source of ['', 'user', 'flagger', 'flagger,user'])
          for (const [det, dec] of [
            [1, 1],
            [1, 0],
            [0, 0],
          ])
            keys.push(JSON.stringify([action, policies, source, det, dec]));
    for (let k = 0; k < n; k++) {
      const key = keys[Math.floor(random() * keys.length)];
      actions[key] = (actions[key] ?? 0) + 1;
    }
    const histogram = (count) => {
      const h = {};
      for (let k = 0; k < count; k++) {
        const bucket = String(durationBucket(Math.floor(random() * random() * 7 * DAY_MS)));
        h[bucket] = (h[bucket] ?? 0) + 1;
      }
      return h;
    };
    const notices = Math.floor(n / 3);
    docs.push({
      id: [ORG, day].map(encodeURIComponent).join(':'),
      doc: {
        orgId: ORG,
        day,
        noticesByPolicy: { spam: Math.floor(notices / 2), violence: notices - Math.floor(notices / 2) },
        noticesByReporterType: { user: Math.floor((notices * 5) / 6), flagger: notices - Math.floor((notices * 5) / 6) },
        actions,
        noticeToAction: histogram(notices),
        appealsReceived: Math.floor(n / 10),
        appealsDecided: Math.floor(n / 10),
        appealsOverturned: Math.floor(n / 200),
        appealDuration: histogram(Math.floor(n / 10)),
      },
    });
  }
  return docs;
}

async function yearReport() {
  const dir = prepare();
  cli(dir, ['user', 'create', '--org', ORG, '--email', 'analyst@bench.example', '--role', 'ANALYST']);
  cli(dir, ['user', 'set-password', '--org', ORG, '--email', 'analyst@bench.example'], `${PASSWORD}\n`);
  const to = isoDay(Date.now());
  const from = isoDay(Date.now() - (DAYS - 1) * DAY_MS);
  const s = openDir(dir);
  // The projection's tables and indexes as the server makes them, caught up on the log (configuration only).
  await new ProjectionRunner(transparencyProjection, s.events, s.reads).catchUp();
  const docs = dayDocs(to);
  const buckets = docs.reduce(
    (n, d) => n + Object.keys(d.doc.noticeToAction).length + Object.keys(d.doc.appealDuration).length + Object.keys(d.doc.actions).length,
    0,
  );
  await s.reads.commit(docs.map((d) => ({ op: 'put', collection: 'transparency_days', id: d.id, doc: d.doc })));
  await s.close(s);

  const runs = [];
  const cliReport = () => {
    const r = cli(dir, ['transparency', 'report', '--org', ORG, '--from', from, '--to', to, '--format', 'json']);
    const report = JSON.parse(r.stdout);
    if (report.actions.total !== YEAR_DECISIONS) throw new Error(`the report counts ${report.actions.total} actions`);
    return r.seconds;
  };
  const cliSeconds = [cliReport(), cliReport(), cliReport()];
  const startup = cli(dir, ['transparency', 'report', '--no-such-option']).seconds;

  const roles = serverRoles(env);
  const port = 43000 + Math.floor(Math.random() * 1000);
  try {
    await roles.start('all', port, dir);
    const base = `http://127.0.0.1:${port}`;
    const login = await fetch(`${base}/api/console/v1/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'analyst@bench.example', password: PASSWORD }),
    });
    if (login.status !== 200) throw new Error(`sign-in answered ${login.status}`);
    const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0];
    for (let i = 0; i < 7; i++) {
      const started = performance.now();
      const res = await fetch(`${base}/api/console/v1/transparency/report?from=${from}&to=${to}`, { headers: { cookie } });
      const body = await res.json();
      runs.push((performance.now() - started) / 1000);
      if (res.status !== 200 || body.actions.total !== YEAR_DECISIONS)
        throw new Error(`the route answered ${res.status}: ${JSON.stringify(body).slice(0, 300)}`);
    }
  } finally {
    await roles.stopAll();
    rmSync(dir, { recursive: true, force: true });
  }
  const sorted = [...runs].sort((a, b) => a - b);
  return {
    from,
    to,
    buckets,
    first: runs[0],
    median: sorted[Math.floor(sorted.length / 2)],
    worst: sorted[sorted.length - 1],
    cli: Math.min(...cliSeconds),
    cliWorst: Math.max(...cliSeconds),
    startup,
  };
}

const p = await projectionThroughput();
const y = await yearReport();
console.log(`DSA transparency (node ${process.version}; CLI runs include start-up)\n`);
console.log('| measure | result |');
console.log('|---|---|');
console.log(
  `| transparency projection catching up on ${round(p.events)} events (${round(DECISIONS)} items, ${round(p.statements)} published actions, reports, appeals) | ${round(p.events / p.seconds)} events/s, **${round(p.statements / p.seconds)} statements/s derived** (${p.seconds.toFixed(1)} s) |`,
);
console.log(
  `| \`warden transparency statements\`: ${round(p.statements)} statements rendered with the mapping and written as NDJSON | ${round(p.statements / p.rendered.seconds)} statements/s (${p.rendered.seconds.toFixed(1)} s) |`,
);
console.log(
  `| report route, ${round(YEAR_DECISIONS)} decisions over ${DAYS} days (${y.from}..${y.to}; ${round(y.buckets)} counter entries) | first ${(y.first * 1000).toFixed(0)} ms, median ${(y.median * 1000).toFixed(0)} ms, worst ${(y.worst * 1000).toFixed(0)} ms of 7 |`,
);
console.log(
  `| \`warden transparency report\` over the same year | ${y.cli.toFixed(2)} s best, ${y.cliWorst.toFixed(2)} s worst of 3 (CLI start-up alone: ${y.startup.toFixed(2)} s) |`,
);
