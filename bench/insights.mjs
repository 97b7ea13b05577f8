// Insights (issue 34, item 2; docs/insights.md). Not a test: prints a table.
// Usage: node bench/insights.mjs [decisions, default 1000000] [days, default 365] (after npm run build)
//  The Insights buckets for a year of moderation are made by the projection itself: its `apply`
//  (the code the server runs) is fed synthetic events, in time order, through an in-memory
//  projection context — review jobs opened in five queues and decided by fifty moderators (the
//  decisions), with the actions the decisions, rules, strike thresholds and the platform published,
//  rules' daily cap counts and appeals decided — and the bucket documents it wrote are then put
//  into a data directory's read store as the projection's unit of work would. A real server (role
//  all) is then asked for GET /api/console/v1/insights over the whole period, signed in as a
//  moderator manager: every queue, and one queue.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSqlite, ProjectionRunner, SqliteEventStore } from '../dist/libs/eventstore/src/index.js';
import { SqliteReadStore } from '../dist/libs/readstore/src/index.js';
import { insightsProjection } from '../dist/libs/insights/src/projections/insights.projection.js';
import { summarize } from '../dist/libs/insights/src/queries/get-insights/get-insights.handler.js';
import { consoleSignIn, createConsoleUser, runCli, serverRoles } from './support/server-roles.mjs';

const DECISIONS = Number(process.argv[2] ?? 1_000_000);
const DAYS = Number(process.argv[3] ?? 365);
const ORG = 'bench';
const QUEUES = ['default', 'spam', 'violence', 'appeals', 'urgent'];
const POLICIES = ['spam', 'violence', 'hate', 'scam', 'nudity', 'harassment'];
const RULES = Array.from({ length: 20 }, (_, i) => `rule-${i}`);
const MODERATORS = Array.from({ length: 50 }, (_, i) => `moderator-${i}`);
const DAY_MS = 86_400_000;
const env = { ...process.env, HOST: '127.0.0.1', WARDEN_LOG_LEVEL: 'warn', WARDEN_RATE_LIMIT_PER_SECOND: '0' };
const round = (n) => Math.round(n).toLocaleString('en-US');
const isoDay = (t) => new Date(t).toISOString().slice(0, 10);

const CONFIG = `
org: { id: ${ORG}, name: Bench }
itemTypes:
  - { id: post, name: Post, kind: CONTENT, fields: [{ name: text, type: STRING }] }
policies:
${POLICIES.map((p) => `  - { id: ${p}, name: ${p[0].toUpperCase()}${p.slice(1)} }`).join('\n')}
actions:
  - { id: remove, name: Remove, kind: CUSTOMER_DEFINED_ACTION, itemTypeIds: [post], callback: { url: "http://127.0.0.1:9/hooks" } }
rules:
${RULES.map(
  (r, i) => `  - id: ${r}
    name: Rule ${i}
    status: LIVE
    itemTypeIds: [post]
    actionIds: [remove]
    policyIds: [${POLICIES[i % POLICIES.length]}]
    ${i % 2 === 0 ? `maxDailyActions: ${500 + i * 10}` : ''}
    conditionSet:
      conjunction: AND
      conditions:
        - { input: { field: text }, signal: { type: TEXT_CONTAINS, args: { terms: ["${r}-term"] } }, comparator: EQUALS, value: true }`,
).join('\n')}
queues:
${QUEUES.map((q) => `  - { id: ${q}, name: ${q[0].toUpperCase()}${q.slice(1)}${q === 'default' ? ', isDefault: true' : ''}${q === 'appeals' ? ', isAppealsDefault: true' : ''} }`).join('\n')}
`;

/** The projection's context as the runner's unit of work gives it, in memory; closed jobs and appeals are let go (nothing reads them again). */
function memoryContext() {
  const collections = new Map();
  const of = (c) => collections.get(c) ?? collections.set(c, new Map()).get(c);
  return {
    collections,
    get: async (c, id) => of(c).get(id),
    put: (c, id, doc) => {
      if ((c === 'insights_jobs' && doc.closed) || (c === 'insights_appeals' && doc.counted)) of(c).delete(id);
      else of(c).set(id, doc);
    },
    delete: (c, id) => of(c).delete(id),
    // Each event is applied once here: a document there was written by an earlier one.
    writtenBefore: async (c, id) => of(c).has(id),
  };
}

let seed = 7;
const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
const pick = (list) => list[Math.floor(random() * list.length)];
let position = 0;
const recorded = (type, data, at, streamName = `s-${type}`, revision = 0) => ({
  id: `e${position}`,
  type,
  data,
  streamName,
  revision,
  position: ++position,
  metadata: { orgId: ORG, correlationId: 'c', causationId: null, actor: 'bench', occurredAt: new Date(at).toISOString(), schemaVersion: 1 },
});
const action = (deliveryId, itemId, trigger, policies, rules) => ({
  deliveryId,
  item: { id: itemId, typeId: 'post', typeName: 'Post' },
  action: { id: 'remove' },
  custom: {},
  creator: null,
  trigger,
  environment: trigger === 'decision' || trigger === 'post-actions' ? 'MANUAL' : 'LIVE',
  policies: policies.map((id) => ({ id, name: id, penalty: 'LOW' })),
  rules: rules.map((id) => ({ id, name: id })),
});

/**
 * A year of events, day by day in time order (a decision falling on a later day waits for it):
 * each decision's job opened minutes to hours before; 60% of decisions publish an action; a rule
 * action for every second decision; a strike threshold's and an executed action now and then;
 * an appeal of a rule's action for one decision in twenty, a third of them overturned.
 */
async function feed(ctx, firstDay) {
  const perDay = Math.floor(DECISIONS / DAYS);
  let left = DECISIONS;
  let events = 0;
  const later = new Map();
  const dailyCap = new Map();
  const apply = async (e) => {
    events++;
    await insightsProjection.apply(e, ctx);
  };
  for (let d = 0; d < DAYS; d++) {
    const dayStart = firstDay + d * DAY_MS;
    const n = d === DAYS - 1 ? left : perDay;
    left -= n;
    const today = later.get(d) ?? [];
    later.delete(d);
    for (let k = 0; k < n; k++) {
      const id = `${d}-${k}`;
      const decidedAt = dayStart + Math.floor(random() * DAY_MS);
      const waited = Math.floor(60_000 * Math.exp(random() * 7)); // 1 minute to about 18 hours
      const queueId = pick(QUEUES);
      const openedAt = decidedAt - waited;
      today.push({
        at: openedAt,
        e: () => recorded('ReviewJobOpened', { jobId: `j${id}`, queueId, openedAt: new Date(openedAt).toISOString(), generation: 1 }, openedAt),
      });
      const acts = random() < 0.6;
      const decided = {
        at: decidedAt,
        e: () =>
          recorded(
            'ReviewJobDecided',
            {
              jobId: `j${id}`,
              decisionId: `d${id}`,
              type: acts ? 'CUSTOM_ACTION' : 'IGNORE',
              actor: { userId: pick(MODERATORS) },
              decidedAt: new Date(decidedAt).toISOString(),
            },
            decidedAt,
          ),
      };
      const whenDecided = [decided];
      if (acts)
        whenDecided.push({
          at: decidedAt,
          e: () => recorded('ActionCallbackRequested', action(`a${id}`, `m${id}`, 'decision', [pick(POLICIES)], []), decidedAt),
        });
      // A decision on the day its job opened goes with today's events; one opened the day before is in order too (an earlier time).
      today.push(...whenDecided);
      if (k % 2 === 0) {
        const rule = pick(RULES);
        const ruleIndex = RULES.indexOf(rule);
        const at = dayStart + Math.floor(random() * DAY_MS);
        today.push({
          at,
          e: () => recorded('ActionCallbackRequested', action(`r${id}`, `p${id}`, 'rule', [POLICIES[ruleIndex % POLICIES.length]], [rule]), at),
        });
        if (ruleIndex % 2 === 0) {
          const key = `${rule}:${d}`;
          const revision = dailyCap.get(key) ?? 0;
          dailyCap.set(key, revision + 1);
          today.push({
            at,
            e: () =>
              recorded(
                'RuleDailyActionCounted',
                { ruleId: rule, item: { id: `p${id}`, typeId: 'post' }, version: 1, content: null },
                at,
                `rule_daily_actions-${ORG}:${rule}:${isoDay(dayStart)}`,
                revision,
              ),
          });
        }
        if (k % 40 === 0) {
          const appealedAt = at + 3_600_000;
          const decidedAppeal = appealedAt + Math.floor(random() * 2 * DAY_MS);
          const target = Math.floor((decidedAppeal - firstDay) / DAY_MS);
          today.push({
            at: appealedAt,
            e: () =>
              recorded(
                'AppealSubmitted',
                {
                  appealId: `ap${id}`,
                  appealedAt: new Date(appealedAt).toISOString(),
                  actionedItem: { id: `p${id}`, typeId: 'post' },
                  actionsTaken: ['remove'],
                },
                appealedAt,
              ),
          });
          const outcome = {
            at: decidedAppeal,
            e: () =>
              recorded(
                'AppealDecided',
                { appealId: `ap${id}`, decision: random() < 1 / 3 ? 'ACCEPT' : 'REJECT', decidedAt: new Date(decidedAppeal).toISOString() },
                decidedAppeal,
              ),
          };
          if (target === d) today.push(outcome);
          else if (target < DAYS) (later.get(target) ?? later.set(target, []).get(target)).push(outcome);
        }
      }
      if (k % 100 === 0)
        today.push({ at: decidedAt, e: () => recorded('ActionCallbackRequested', action(`t${id}`, `u${id}`, 'strike-threshold', [], []), decidedAt) });
      if (k % 50 === 0)
        today.push({
          at: decidedAt,
          e: () => recorded('ActionCallbackRequested', action(`x${id}`, `x${id}`, 'post-actions', [pick(POLICIES)], []), decidedAt),
        });
    }
    today.sort((a, b) => a.at - b.at);
    for (const { e } of today) await apply(e());
  }
  return events;
}

const dir = mkdtempSync(join(tmpdir(), 'warden-bench-insights-'));
const roles = serverRoles(env);
try {
  writeFileSync(join(dir, 'org.yaml'), CONFIG);
  runCli(env, dir, ['apply', join(dir, 'org.yaml')]);
  createConsoleUser(env, dir, ORG, 'manager@bench.example', 'MODERATOR_MANAGER');

  const to = isoDay(Date.now());
  const firstDay = Date.parse(`${to}T00:00:00Z`) - (DAYS - 1) * DAY_MS;
  const from = isoDay(firstDay);
  const ctx = memoryContext();
  const fedAt = performance.now();
  const events = await feed(ctx, firstDay);
  const fedSeconds = (performance.now() - fedAt) / 1000;

  // The projection's tables and indexes as the server makes them (caught up on the log: configuration only), then its buckets.
  const db = openSqlite(join(dir, 'warden.db'), { synchronous: 'normal' });
  const rdb = openSqlite(join(dir, 'read-models.db'), { synchronous: 'normal' });
  const eventStore = new SqliteEventStore(db);
  const reads = new SqliteReadStore(rdb);
  await new ProjectionRunner(insightsProjection, eventStore, reads).catchUp();
  // Per-item documents only serve the attribution of later appeals: counted, not written.
  const kept = ['insights_days', 'insights_queue_days', 'insights_queues'];
  const writes = kept.flatMap((c) => [...(ctx.collections.get(c) ?? new Map())].map(([id, doc]) => ({ op: 'put', collection: c, id, doc, position: 1 })));
  for (let i = 0; i < writes.length; i += 5000) await reads.commit(writes.slice(i, i + 5000));
  const counts = Object.fromEntries([...kept, 'insights_items'].map((c) => [c, ctx.collections.get(c)?.size ?? 0]));
  // The route's own work in this process, without HTTP or the server's other work: its two range
  // reads and the shaping of the series, in wall-clock and CPU time (the CPU time depends little
  // on what else the machine runs).
  const inProcess = [];
  for (let i = 0; i < 7; i++) {
    const wall = performance.now();
    const cpu = process.cpuUsage();
    const range = { gte: from, lt: isoDay(Date.parse(`${to}T00:00:00Z`) + DAY_MS) };
    const [days, queueDays] = await Promise.all([
      reads.find('insights_days', { orgId: ORG, day: range }),
      reads.find('insights_queue_days', { orgId: ORG, day: range }),
    ]);
    const report = summarize({
      period: { from, to },
      now: new Date(),
      queueId: null,
      queues: QUEUES,
      days,
      queueDays,
      before: [],
      catalog: { queues: new Map(), policies: new Map(), rules: new Map() },
      known: QUEUES,
    });
    JSON.stringify(report);
    const used = process.cpuUsage(cpu);
    inProcess.push({ wall: performance.now() - wall, cpu: (used.user + used.system) / 1000 });
    if (report.timeToDecision.byQueue.reduce((n, q) => n + q.decided, 0) !== DECISIONS) throw new Error('the buckets do not hold every decision');
  }
  const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
  await eventStore.close();
  db.close();
  rdb.close();

  const port = 44000 + Math.floor(Math.random() * 1000);
  await roles.start('all', port, dir);
  const base = `http://127.0.0.1:${port}`;
  const { cookie } = await consoleSignIn(base, 'manager@bench.example');
  const load = loadavg()[0];
  const time = async (query, check) => {
    const runs = [];
    for (let i = 0; i < 7; i++) {
      const started = performance.now();
      const res = await fetch(`${base}/api/console/v1/insights?${query}`, { headers: { cookie } });
      const body = await res.json();
      runs.push(performance.now() - started);
      if (res.status !== 200) throw new Error(`the route answered ${res.status}: ${JSON.stringify(body).slice(0, 300)}`);
      check(body);
    }
    const sorted = [...runs].sort((a, b) => a - b);
    return { first: runs[0], median: sorted[3], worst: sorted[6] };
  };
  const decided = (body) => body.timeToDecision.byQueue.reduce((n, q) => n + q.decided, 0);
  const all = await time(`from=${from}&to=${to}`, (body) => {
    if (decided(body) !== DECISIONS) throw new Error(`the charts count ${decided(body)} decisions`);
  });
  const one = await time(`from=${from}&to=${to}&queue=spam`, (body) => {
    if (body.queueDepth.queues.length !== 1) throw new Error('the queue filter was not applied');
  });
  const bytes = (await (await fetch(`${base}/api/console/v1/insights?from=${from}&to=${to}`, { headers: { cookie } })).text()).length;

  console.log(
    `Insights (node ${process.version}): ${round(DECISIONS)} decisions over ${DAYS} days (${from}..${to}); load average ${load.toFixed(1)} when the route was timed\n`,
  );
  console.log(
    'Buckets made by the projection itself: its apply fed synthetic events through an in-memory context, the documents then put into the read store.\n',
  );
  console.log('| measure | result |');
  console.log('|---|---|');
  console.log(`| events applied by the projection | ${round(events)} in ${fedSeconds.toFixed(1)} s (${round(events / fedSeconds)} events/s, in memory) |`);
  console.log(
    `| bucket documents | ${round(counts.insights_days)} day, ${round(counts.insights_queue_days)} queue-day, ${round(counts.insights_queues)} queue (and ${round(counts.insights_items)} actioned items) |`,
  );
  console.log(
    `| GET /api/console/v1/insights, every queue, ${DAYS} days (${round(bytes)} bytes) | first ${all.first.toFixed(0)} ms, median ${all.median.toFixed(0)} ms, worst ${all.worst.toFixed(0)} ms of 7 |`,
  );
  console.log(`| the same, one queue | first ${one.first.toFixed(0)} ms, median ${one.median.toFixed(0)} ms, worst ${one.worst.toFixed(0)} ms of 7 |`);
  console.log(
    `| the route's reads and shaping in process (no HTTP), every queue | median ${median(inProcess.map((r) => r.wall)).toFixed(0)} ms wall, ${median(inProcess.map((r) => r.cpu)).toFixed(0)} ms CPU of 7 |`,
  );
} finally {
  await roles.stopAll();
  rmSync(dir, { recursive: true, force: true });
}
