// What a command costs on each kind of stream whose history grows (docs/architecture.md, "Streams and
// what a command costs"): counted in events read through the store port, on a stream of 10,000
// events, with the real deciders, the real embedded log and the real snapshot table.
import { afterEach, describe, expect, it } from 'vitest';
import { Aggregates, SqliteSnapshotStore } from '#warden/eventstore';
import { type CommandContext, type Decider, type DomainEvent, FixedClock, randomIds } from '#warden/kernel';
import { auditCheckpointDecider } from '../libs/audit/src/chain/audit-checkpoint.decider.js';
import { auditChainStream } from '../libs/audit/src/chain/audit-chain.streams.js';
import { orgConfigStream } from '../libs/catalog/src/domain/catalog.streams.js';
import { orgConfigDecider } from '../libs/catalog/src/domain/org-config.decider.js';
import { type ApplyUserStrikes, userStrikesDecider } from '../libs/enforcement/src/domain/user-strikes.decider.js';
import { userStrikesStream } from '../libs/enforcement/src/domain/user-strikes.streams.js';
import { apiKeyDecider } from '../libs/identity/src/domain/api-key.decider.js';
import { accessAuditDecider } from '../libs/identity/src/domain/access-audit.decider.js';
import { accessAuditStream, apiKeyStream, userStream } from '../libs/identity/src/domain/identity.streams.js';
import { userAccessFolding } from '../libs/identity/src/domain/user-access.js';
import { type UserCommand, userDecider } from '../libs/identity/src/domain/user.decider.js';
import { type ReviewJobCommand, reviewJobDecider } from '../libs/review/src/domain/review-job.decider.js';
import { reviewJobStream } from '../libs/review/src/domain/review.streams.js';
import { dailyActionCapDecider } from '../libs/rules/src/domain/daily-action-cap.decider.js';
import { dailyActionsStream } from '../libs/rules/src/domain/evaluation.streams.js';
import { type QueryBus } from '@nestjs/cqrs';
import { UserStrikesReader } from '../libs/enforcement/src/standing/user-strikes.reader.js';
import { itemStream } from '../libs/ingestion/src/domain/item.streams.js';
import { latestItemVersion } from '../libs/ingestion/src/item-versions.js';
import { recordedDecision } from '../libs/review/src/job-decision.js';
import { JOB_REPORTS_LISTED, JobReports } from '../libs/review/src/job-reports.js';
import { AggregateStore } from '../libs/storage/src/aggregate-store.js';
import { CountingEventStore } from './support/counting-event-store.js';
import { jobDecision } from './support/review-events.js';
import { sqliteStores } from './support/sqlite-stores.js';

const LENGTH = 10_000;
const SNAPSHOT_EVERY = 100;
const T0 = new Date('2026-11-28T00:00:00Z');
const context: CommandContext = { orgId: 'acme', correlationId: 'c1', actor: 'test' };
const at = (seconds: number) => new Date(T0.getTime() + seconds * 1000).toISOString();
/** As the application registers them (review.module.ts): a review job's reasons are what reporters wrote. */
const PERSONAL = new Set(['ReviewJobOpened', 'ReviewJobMerged', 'ActionCallbackRequested']);

type AnyDecider = Decider<unknown, unknown, DomainEvent<string, object>>;

/** One kind of stream: a decider, a history of LENGTH events made by its own commands, and the next command. */
interface StreamKind {
  readonly name: string;
  readonly stream: string;
  readonly decider: AnyDecider;
  /** Commands whose events make the history (decided in turn on the evolving state). */
  history(): Iterable<unknown>;
  next(i: number): unknown;
  /** Snapshotted: a process without the state cached reads at most SNAPSHOT_EVERY events. */
  readonly snapshotted: boolean;
}

const strikes = (i: number): ApplyUserStrikes => ({
  type: 'ApplyUserStrikes',
  key: `k${i}`,
  strikes: 1,
  action: { id: 'remove' },
  policyIds: ['spam'],
  item: { id: `p${i}`, typeId: 'post' },
  user: { id: 'flooder', typeId: 'user', typeName: 'User', version: 0 },
  at: at(i),
  now: at(i),
  windowDays: 30,
  thresholds: [],
});

/** A mass-reported item: report after report merged into its job (each with what its reporter wrote), and a moderator's claim and release now and then. */
const report = (i: number): ReviewJobCommand =>
  ({
    type: 'Enqueue',
    jobId: 'job-1',
    queueId: 'default',
    generation: 0,
    item: { id: 'p1', typeId: 'post', typeName: 'Post' },
    request: {
      requestId: `r${i}`,
      source: 'REPORT',
      at: at(i),
      version: 1,
      report: { reportId: `r${i}`, reporter: { kind: 'user', id: `u${i}`, typeId: 'user' }, reportedAt: at(i), hasReason: true, policyId: null, csam: false },
      action: null,
      policies: [],
      routedBy: null,
      fromJobId: null,
    },
    carried: [],
    carriedFrom: null,
    reasons: { [`r${i}`]: `reporter ${i} wrote this` },
    subject: `user:u${i}`,
    now: at(i),
  }) as unknown as ReviewJobCommand;
const massReported = function* (): Iterable<ReviewJobCommand> {
  for (let i = 0; ; i++) {
    yield report(i);
    if (i % 100 === 99) {
      yield { type: 'Claim', moderatorId: 'm1', lockTokenHash: `h${i}`, expiresAt: at(i + 5), now: at(i) };
      yield { type: 'ReleaseLock', moderatorId: 'm1', lockTokenHash: `h${i}`, now: at(i + 1) };
    }
  }
};

/** The checkpointer's command for chain head `seq` (signed by the key `k1`: the decider checks only that heads move forward). */
const checkpoint = (seq: number) => ({
  type: 'CheckpointAuditChain',
  head: { seq, position: seq * 10, link: `link-${seq}` },
  kid: 'k1',
  signature: `sig-${seq}`,
  now: at(seq),
});
const loginFailure = (i: number) => ({
  type: 'RecordLoginFailure',
  failure: { emailDigest: `digest-${i % 7}`, userId: null, method: 'password', reason: 'wrong-password', clientAddress: null },
});

const KINDS: StreamKind[] = [
  {
    name: "a user's strikes",
    stream: userStrikesStream('acme', { id: 'flooder', typeId: 'user' })!,
    decider: userStrikesDecider as unknown as AnyDecider,
    history: function* () {
      for (let i = 0; ; i++) yield strikes(i);
    },
    next: (i) => strikes(LENGTH + i),
    snapshotted: true,
  },
  {
    name: "a rule's daily cap",
    stream: dailyActionsStream('acme', 'spam-rule', '2026-11-28'),
    decider: dailyActionCapDecider as unknown as AnyDecider,
    history: function* () {
      for (let i = 0; ; i++)
        yield { type: 'CountDailyAction', ruleId: 'spam-rule', item: { id: `p${i}`, typeId: 'post' }, version: 0, content: `c${i}`, max: 1_000_000 };
    },
    next: (i) => ({ type: 'CountDailyAction', ruleId: 'spam-rule', item: { id: `n${i}`, typeId: 'post' }, version: 0, content: `n${i}`, max: 1_000_000 }),
    snapshotted: true,
  },
  {
    name: "a mass-reported item's review job",
    stream: reviewJobStream('acme', 'job-1'),
    decider: reviewJobDecider as unknown as AnyDecider,
    history: massReported,
    next: (i) => report(10 * LENGTH + i),
    snapshotted: true,
  },
  {
    name: "an organization's audit chain checkpoints",
    stream: auditChainStream('acme'),
    decider: auditCheckpointDecider as unknown as AnyDecider,
    history: function* () {
      for (let seq = 1; ; seq++) yield checkpoint(seq);
    },
    next: (i) => checkpoint(10 * LENGTH + i),
    snapshotted: true,
  },
  {
    name: "an organization's access audit (failed sign-ins, Investigate lookups)",
    stream: accessAuditStream('acme'),
    decider: accessAuditDecider as unknown as AnyDecider,
    history: function* () {
      for (let i = 0; ; i++)
        yield i % 2 === 0
          ? loginFailure(i)
          : { type: 'RecordInvestigationView', view: { userId: 'm1', viewed: { kind: 'item', typeId: 'post', id: `p${i}` } } };
    },
    next: (i) => loginFailure(i),
    snapshotted: true,
  },
  {
    name: "an organization's configuration",
    stream: orgConfigStream('acme'),
    decider: orgConfigDecider as unknown as AnyDecider,
    history: function* () {
      for (let i = 0; ; i++) yield { type: 'DefineQueue', mode: i === 0 ? 'create' : 'update', queue: { id: 'q1', name: `Queue ${i}` } };
    },
    next: (i) => ({ type: 'DefineQueue', mode: 'update', queue: { id: 'q1', name: `Next ${i}` } }),
    snapshotted: false,
  },
  {
    name: 'an API key',
    stream: apiKeyStream('acme', 'key-1'),
    decider: apiKeyDecider as unknown as AnyDecider,
    // A key's own commands stop after a few events; its history is made long by hand (revocations decide nothing twice).
    history: function* () {
      yield { type: 'CreateApiKey', keyId: 'key-1', orgId: 'acme', name: null, team: null, hash: 'h', prefix: 'wk_', rotatedFrom: null };
      for (;;) yield { type: 'RevokeApiKey', keyId: 'key-1', orgId: 'acme' };
    },
    next: () => ({ type: 'RevokeApiKey', keyId: 'key-1', orgId: 'acme' }),
    snapshotted: true,
  },
];

describe('the cost of a command on a stream of 10,000 events', () => {
  let stores: ReturnType<typeof sqliteStores>;
  afterEach(async () => {
    await stores?.close();
  });

  for (const kind of KINDS) {
    it(`${kind.name}: a few events read, in a process with the state and in one without`, async () => {
      stores = sqliteStores();
      const { events, snapshots, process } = processes(stores, PERSONAL);
      const writer = process();
      await writeHistory(writer, kind, events);
      expect((await stores.events.readStream(kind.stream)).length).toBeGreaterThanOrEqual(LENGTH);

      // The process that wrote it has the state: a command reads nothing but what is new.
      events.reset();
      await writer.handle(kind.stream, kind.decider, kind.next(1), context);
      expect(events.eventsRead).toBe(0);

      // Another process appends; this one reads that event alone.
      const other = process();
      await other.handle(kind.stream, kind.decider, kind.next(2), context);
      events.reset();
      await writer.handle(kind.stream, kind.decider, kind.next(3), context);
      expect(events.eventsRead).toBeLessThanOrEqual(1);

      // A process that never read the stream: from the snapshot where there is one.
      await settleSnapshots(snapshots, kind);
      events.reset();
      await process().handle(kind.stream, kind.decider, kind.next(4), context);
      if (kind.snapshotted) expect(events.eventsRead).toBeLessThanOrEqual(SNAPSHOT_EVERY);
      else expect(events.eventsRead).toBeGreaterThanOrEqual(LENGTH);
    });
  }
});

/**
 * Readers of a long stream's newest part (a job's newest reports and its decision, a user's latest
 * strikes, an item's latest version): counted the same way, on streams of 10,000 events. The state
 * they pair with is the write path's (cached or snapshotted, above); what they read besides is
 * bounded by what they list.
 */
describe("the cost of reading a 10,000-event stream's newest part", () => {
  let stores: ReturnType<typeof sqliteStores>;
  afterEach(async () => {
    await stores?.close();
  });
  const setUp = () => {
    stores = sqliteStores();
    const events = new CountingEventStore(stores.events);
    const aggregates = new AggregateStore(events, new FixedClock(T0), randomIds);
    return { events, aggregates };
  };

  it("a mass-reported job: the view's and a decision's newest 1,000 reports, and the job's decision once closed", async () => {
    const { events, aggregates } = setUp();
    const job = KINDS.find((k) => k.name === "a mass-reported item's review job")!;
    await writeHistory(new Aggregates({ events, clock: new FixedClock(T0), ids: randomIds }), job, events);
    const jobReports = new JobReports(aggregates, events);
    const { state, revision } = await aggregates.stateAt(job.stream, reviewJobDecider);
    expect(state.reportCount).toBeGreaterThanOrEqual(9_800);

    events.reset();
    const newest = await jobReports.newest('acme', 'job-1', { through: revision });
    expect(jobReports.reportsOf(newest)).toHaveLength(JOB_REPORTS_LISTED);
    // The newest 1,000 reports and the claims between them, read in pages of 250.
    expect(events.eventsRead).toBeLessThanOrEqual(JOB_REPORTS_LISTED + 2 * 20 + 250);

    events.reset();
    expect(await recordedDecision(events, 'acme', 'job-1')).toBeUndefined();
    expect(events.eventsRead).toBeLessThanOrEqual(64);
    await aggregates.record(job.stream, [jobDecision('job-1', 'IGNORE', null)], context, 'any');
    events.reset();
    expect((await recordedDecision(events, 'acme', 'job-1'))?.decisionId).toBe('dec-IGNORE');
    expect(events.eventsRead).toBeLessThanOrEqual(64);
  });

  it("a flooding user's strike history: the newest hundred applications", async () => {
    const { events, aggregates } = setUp();
    const user = KINDS.find((k) => k.name === "a user's strikes")!;
    await writeHistory(new Aggregates({ events, clock: new FixedClock(T0), ids: randomIds }), user, events);
    const settings = { execute: async () => ({ windowDays: 30 }) } as unknown as QueryBus;
    const reader = new UserStrikesReader(undefined as never, aggregates, events, settings, new FixedClock(new Date(at(LENGTH))));
    await aggregates.state(user.stream, userStrikesDecider);
    events.reset();
    const history = await reader.history('acme', { id: 'flooder', typeId: 'user' });
    expect(history?.strikes).toHaveLength(100);
    expect(history?.strikes[0]?.item.id).toBe(`p${LENGTH - 1}`);
    expect(events.eventsRead).toBeLessThanOrEqual(128);
  });

  it("a console user signed in 5,000 times: a session check reads the user's access, from its snapshot, never the whole stream", async () => {
    stores = sqliteStores();
    // UserCreated holds the email: the user's whole state is personal (cached a minute, never snapshotted).
    const { events, snapshots, process } = processes(stores, new Set(['UserCreated']));
    const writer = process();
    const stream = userStream('acme', 'u1');
    const create: UserCommand = {
      type: 'CreateUser',
      userId: 'u1',
      orgId: 'acme',
      email: 'a@x.example',
      emailDigest: 'd',
      roles: ['ADMIN'],
      state: 'active',
      passwordHash: 'h',
    };
    await writer.handle(stream, userDecider, create, context);
    for (let i = 0; i < LENGTH / 2; i++) {
      const open: UserCommand = {
        type: 'OpenConsoleSession',
        orgId: 'acme',
        sessionId: `s${i}`,
        tokenHash: `t${i}`,
        csrfTokenHash: `c${i}`,
        method: 'password',
        expiresAt: at(86_400 * 30),
        openedAt: at(i),
      };
      await writer.handle(stream, userDecider, open, context);
      await writer.handle(
        stream,
        userDecider,
        { type: 'CloseConsoleSession', orgId: 'acme', sessionId: `s${i}`, reason: 'logout' } satisfies UserCommand,
        context,
      );
      // The checks a signed-in user's requests make, as they go (which also write the access's snapshots).
      if (i % 50 === 0) await writer.state(stream, userAccessFolding);
    }
    for (let i = 0; i < 1000; i++) {
      const stored = await snapshots.read(stream, 'user_access');
      if (stored && stored.revision >= LENGTH - 2 * SNAPSHOT_EVERY) break;
      await new Promise((r) => setImmediate(r));
    }
    events.reset();
    const fresh = process();
    const access = await fresh.state(stream, userAccessFolding);
    expect(access.state).toMatchObject({ userId: 'u1', state: 'active', roles: ['ADMIN'], sessions: {} });
    expect(access.state).not.toHaveProperty('email');
    expect(events.eventsRead).toBeLessThanOrEqual(2 * SNAPSHOT_EVERY);
    // The next check in that process reads only what is new: nothing.
    events.reset();
    await fresh.state(stream, userAccessFolding);
    expect(events.eventsRead).toBe(0);
    // The user's whole state, with the email, is the one read from the start.
    events.reset();
    await fresh.state(stream, userDecider);
    expect(events.eventsRead).toBeGreaterThanOrEqual(LENGTH);
  });

  it('an item edited 10,000 times: its latest version, one event', async () => {
    const { events } = setUp();
    const item = { id: 'p1', typeId: 'post' };
    const stream = itemStream('acme', item.typeId, item.id);
    for (let i = 0; i < LENGTH; i += 1000) {
      const chunk = Array.from({ length: 1000 }, (_, j) => ({
        id: randomIds.uuid(),
        type: 'ItemSubmitted',
        data: {
          itemId: item.id,
          typeId: item.typeId,
          typeVersion: null,
          typeSchemaVariant: 'original',
          data: { text: `version ${i + j}` },
          creator: null,
          subject: 'item:p1',
          source: 'items',
        },
        metadata: { orgId: 'acme', correlationId: 'c', causationId: null, actor: 'test', occurredAt: at(i + j), schemaVersion: 1 },
      }));
      await events.append(stream, chunk, i === 0 ? 'no_stream' : i - 1);
    }
    events.reset();
    const latest = await latestItemVersion(events, 'acme', item);
    expect(latest?.version).toBe(LENGTH - 1);
    expect(latest?.data).toEqual({ text: `version ${LENGTH - 1}` });
    expect(events.eventsRead).toBe(1);
  });
});

/**
 * Processes over one embedded log, its reads counted, and one snapshot table: `process()` is a
 * process's write path (its own cache), snapshotting every SNAPSHOT_EVERY events; `personal`, the
 * event types whose personal fields the log seals.
 */
function processes(stores: ReturnType<typeof sqliteStores>, personal: ReadonlySet<string>) {
  const events = new CountingEventStore(stores.events);
  const snapshots = new SqliteSnapshotStore(stores.open());
  const process = () =>
    new Aggregates(
      { events, clock: new FixedClock(T0), ids: randomIds },
      { snapshots, snapshotEvery: SNAPSHOT_EVERY, personalEventType: (type) => personal.has(type) },
    );
  return { events, snapshots, process };
}

/**
 * LENGTH events decided by the kind's own commands on the evolving state, appended through the
 * write path a thousand commands at a time (as a busy stream is: queued, decided, appended together).
 */
async function writeHistory(aggregates: Aggregates, kind: StreamKind, events: CountingEventStore): Promise<void> {
  const commands = kind.history()[Symbol.iterator]();
  let written = 0;
  while (written < LENGTH) {
    const batch: Array<Promise<unknown>> = [];
    for (let i = 0; i < 1000; i++) batch.push(aggregates.handle(kind.stream, kind.decider, commands.next().value, context));
    await Promise.all(batch);
    written = (await events.readStream(kind.stream, { fromRevision: 0 })).length;
    // A command that decides nothing (a key revoked again) writes nothing: such a history is filled by hand.
    if (written < 5 && kind.name === 'an API key') {
      await fillByHand(events, kind, written);
      // The writing process reads what it wrote by hand once, as it would have folded its own appends.
      await aggregates.state(kind.stream, kind.decider);
      return;
    }
  }
}

async function fillByHand(events: CountingEventStore, kind: StreamKind, from: number): Promise<void> {
  let expected = from - 1;
  for (let i = from; i < LENGTH; i += 1000) {
    const chunk = Array.from({ length: Math.min(1000, LENGTH - i) }, () => ({
      id: randomIds.uuid(),
      type: 'ApiKeyRevoked',
      data: { keyId: 'key-1' },
      metadata: { orgId: 'acme', correlationId: 'c', causationId: null, actor: 'test', occurredAt: T0.toISOString(), schemaVersion: 1 },
    }));
    expected = (await events.append(kind.stream, chunk, expected)).nextRevision;
  }
}

/** Snapshots are written beside the commands, not awaited by them: wait until the last is in. */
async function settleSnapshots(snapshots: SqliteSnapshotStore, kind: StreamKind): Promise<void> {
  if (!kind.snapshotted) return;
  const name = kind.decider.snapshot!.name;
  for (let i = 0; i < 1000; i++) {
    const stored = await snapshots.read(kind.stream, name);
    if (stored && stored.revision >= LENGTH - SNAPSHOT_EVERY) return;
    await new Promise((r) => setImmediate(r));
  }
  throw new Error(`no recent snapshot of ${kind.stream}`);
}
