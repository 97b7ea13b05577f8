import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventCount, loggedEvents, rawLog } from '../support/config-files.js';
import { type ReviewWorld, reviewOrgConfig, type Session, startReceiver, startReviewWorld } from '../support/review-fixture.js';
import { waitFor } from '../support/wait-for.js';

interface Claimed {
  job: { jobId: string; queueId: string; item: { id: string } };
  lock: { token: string; expiresAt: string };
}
interface ErrorBody {
  errors: Array<{ type: string[]; pointer?: string; detail?: string }>;
}

/** The error type of an error body (every item of one refusal has the same; docs/api.md, "Errors"). */
const errorType = async (response: Response) => ((await response.json()) as ErrorBody).errors[0]?.type[0];

type Receiver = Awaited<ReturnType<typeof startReceiver>>;

/** Submits a post; its text decides where rules send it ("review me" → default, "csam-test" → child-safety). */
async function submitPost(world: ReviewWorld, id: string, text: string, extra: Record<string, unknown> = {}): Promise<void> {
  const response = await world.api('POST', '/api/v1/items/async', {
    items: [{ id, typeId: 'post', data: { text, author: { id: `author-of-${id}`, typeId: 'user' }, ...extra } }],
  });
  expect(response.status).toBe(202);
}

/** Claims from a queue until the job of `itemId` comes up (earlier tests leave none pending). */
async function claimJobOf(world: ReviewWorld, session: Session, queueId: string, itemId: string): Promise<Claimed> {
  const claimed = await waitFor(async () => {
    const response = await world.call(session, 'POST', `/api/console/v1/queues/${queueId}/claim`);
    return response.status === 200 ? ((await response.json()) as Claimed) : undefined;
  }, `a job to claim in ${queueId}`);
  expect(claimed.job.item.id).toBe(itemId);
  return claimed;
}

const decide = (world: ReviewWorld, session: Session, jobId: string, body: unknown) =>
  world.call(session, 'POST', `/api/console/v1/jobs/${jobId}/decision`, body);

const decisionEvents = (world: ReviewWorld) =>
  eventCount(world.dataDir, "type IN ('ReviewJobDecided', 'ActionCallbackRequested', 'ChildSafetyReportRecorded')");

const summaryId = (decided: { data: Record<string, unknown> }) => decided.data['decisionId'];

const callbacksFor = (receiver: Receiver, itemId: string) =>
  receiver.received.filter((c) => (JSON.parse(c.body) as { item: { id: string } }).item.id === itemId);

describe('review decisions over HTTP', () => {
  let world: ReviewWorld;
  let receiver: Receiver;

  beforeAll(async () => {
    receiver = await startReceiver();
    world = await startReviewWorld(reviewOrgConfig(receiver.url), ['MODERATOR', 'CHILD_SAFETY_MODERATOR', 'EXTERNAL_MODERATOR', 'ADMIN']);
  }, 60_000);

  afterAll(async () => {
    await world?.warden.stop();
    await receiver?.close();
  });

  it('CUSTOM_ACTION sends one signed decision callback with the moderator, reason, note, policies, parameters and creator', async () => {
    const moderator = world.sessions['MODERATOR']!;
    await submitPost(world, 'p-remove', 'please review me');
    const { job, lock } = await claimJobOf(world, moderator, 'default', 'p-remove');
    const response = await decide(world, moderator, job.jobId, {
      lockToken: lock.token,
      type: 'CUSTOM_ACTION',
      actionIds: ['remove'],
      policyIds: ['spam'],
      reason: 'clear spam',
      note: 'third time this week',
      parameters: { durationDays: 7 },
    });
    expect(response.status).toBe(200);
    const summary = (await response.json()) as { jobId: string; decisionId: string; type: string; deliveryIds: string[] };
    expect(summary).toMatchObject({ jobId: job.jobId, type: 'CUSTOM_ACTION' });
    expect(summary.deliveryIds).toHaveLength(1);

    const [callback] = await waitFor(
      () => (callbacksFor(receiver, 'p-remove').length > 0 ? callbacksFor(receiver, 'p-remove') : undefined),
      'the decision callback',
    );
    expect(callback!.path).toBe('/hooks/remove');
    expect(callback!.headers['service-signature']).toMatch(/^t=\d+,kid=[\w-]+,v1=/);
    const body = JSON.parse(callback!.body) as Record<string, unknown>;
    expect(body).toMatchObject({
      item: { id: 'p-remove', typeId: 'post', typeName: 'Post' },
      action: { id: 'remove' },
      policies: [{ id: 'spam', name: 'Spam', penalty: 'LOW' }],
      rules: [],
      actorEmail: 'moderator@rev.example',
      actorNote: 'third time this week',
      decisionReason: 'clear spam',
      creator: { id: 'author-of-p-remove', typeId: 'user' },
      custom: { severity: 'high', durationDays: 7, reason: 'clear spam' },
    });
    // A rule-enqueued job has no reports: no report history (reports come with the report endpoint).
    expect((body['custom'] as Record<string, unknown>)['reportHistory']).toBeUndefined();

    const decided = loggedEvents(world.dataDir, 'ReviewJobDecided').find((e) => e.data['jobId'] === job.jobId)!;
    expect(decided.data).toMatchObject({
      decisionId: summary.decisionId,
      type: 'CUSTOM_ACTION',
      actor: { userId: world.userIds['MODERATOR'] },
      actionIds: ['remove'],
      deliveryIds: summary.deliveryIds,
    });
    // The same delivery id in the same append: one callback, however often the reactor re-runs.
    const requested = loggedEvents(world.dataDir, 'ActionCallbackRequested').filter((e) => e.data['deliveryId'] === summary.deliveryIds[0]);
    expect(requested).toHaveLength(1);
  });

  it('IGNORE closes the job and sends nothing', async () => {
    const moderator = world.sessions['MODERATOR']!;
    await submitPost(world, 'p-ignore', 'please review me');
    const ignored = await claimJobOf(world, moderator, 'default', 'p-ignore');
    const response = await decide(world, moderator, ignored.job.jobId, { lockToken: ignored.lock.token, type: 'IGNORE' });
    expect(response.status).toBe(200);
    expect(((await response.json()) as { deliveryIds: string[] }).deliveryIds).toEqual([]);

    // A later decision's callback comes after the IGNORE in the log: once it arrived, the IGNORE was handled.
    await submitPost(world, 'p-after', 'please review me');
    const after = await claimJobOf(world, moderator, 'default', 'p-after');
    expect((await decide(world, moderator, after.job.jobId, { lockToken: after.lock.token, type: 'CUSTOM_ACTION', actionIds: ['remove'] })).status).toBe(200);
    await waitFor(() => callbacksFor(receiver, 'p-after').length > 0, 'the later decision callback');
    expect(callbacksFor(receiver, 'p-ignore')).toEqual([]);
    // The listing reads the deliveries read model, which follows the log a moment behind the callback's arrival.
    const deliveries = await waitFor(async () => {
      const page = (await (await world.api('GET', '/api/v1/callbacks/deliveries?limit=100')).json()) as { deliveries: Array<{ item: { id: string } }> };
      return page.deliveries.some((d) => d.item.id === 'p-after') && page;
    }, 'the delivery of p-after listed');
    expect(deliveries.deliveries.some((d) => d.item.id === 'p-after')).toBe(true);
    expect(deliveries.deliveries.some((d) => d.item.id === 'p-ignore')).toBe(false);
  });

  it('a decision needs the live lock: another moderator, a wrong token, a second decision → 409', async () => {
    const moderator = world.sessions['MODERATOR']!;
    await submitPost(world, 'p-lock', 'please review me');
    const { job, lock } = await claimJobOf(world, moderator, 'default', 'p-lock');

    const notClaimed = await decide(world, world.sessions['ADMIN']!, job.jobId, { lockToken: lock.token, type: 'IGNORE' });
    expect(notClaimed.status).toBe(409);
    expect(await errorType(notClaimed)).toBe('/errors/lock-not-held');

    const wrongToken = await decide(world, moderator, job.jobId, { lockToken: 'not-the-token', type: 'IGNORE' });
    expect(wrongToken.status).toBe(409);
    expect(await errorType(wrongToken)).toBe('/errors/lock-not-held');

    expect((await decide(world, moderator, job.jobId, { lockToken: lock.token, type: 'IGNORE' })).status).toBe(200);
    const twice = await decide(world, moderator, job.jobId, { lockToken: lock.token, type: 'IGNORE' });
    expect(twice.status).toBe(409);
    expect(await errorType(twice)).toBe('/errors/job-closed');

    const unknown = await decide(world, moderator, 'no-such-job', { lockToken: lock.token, type: 'IGNORE' });
    expect(unknown.status).toBe(404);
  });

  it('bad decisions get 400 with pointers and record nothing', async () => {
    const moderator = world.sessions['MODERATOR']!;
    await submitPost(world, 'p-bad', 'please review me');
    const { job, lock } = await claimJobOf(world, moderator, 'default', 'p-bad');
    const before = decisionEvents(world);
    const cases: Array<[unknown, string]> = [
      [{ type: 'IGNORE' }, '/lockToken'],
      [{ lockToken: lock.token, type: 'NOPE' }, '/type'],
      [{ lockToken: lock.token, type: 'ACCEPT_APPEAL' }, '/type'],
      [{ lockToken: lock.token, type: 'AUTOMATIC_CLOSE' }, '/type'],
      [{ lockToken: lock.token, type: 'CUSTOM_ACTION' }, '/actionIds'],
      [{ lockToken: lock.token, type: 'CUSTOM_ACTION', actionIds: 'remove' }, '/actionIds'],
      [{ lockToken: lock.token, type: 'CUSTOM_ACTION', actionIds: ['nope'] }, '/actionIds/0'],
      [{ lockToken: lock.token, type: 'CUSTOM_ACTION', actionIds: ['remove', 'enqueue-to-mrt'] }, '/actionIds/1'],
      [{ lockToken: lock.token, type: 'CUSTOM_ACTION', actionIds: ['remove'], policyIds: ['spam', 'nope'] }, '/policyIds/1'],
      [{ lockToken: lock.token, type: 'CUSTOM_ACTION', actionIds: ['remove'], parameters: { durationDays: 'seven' } }, '/parameters/durationDays'],
      [{ lockToken: lock.token, type: 'CUSTOM_ACTION', actionIds: ['remove'], parameters: { unknown: 1 } }, '/parameters/unknown'],
      [{ lockToken: lock.token, type: 'IGNORE', actionIds: ['remove'] }, '/actionIds'],
      [{ lockToken: lock.token, type: 'TRANSFORM_JOB_AND_RECREATE_IN_QUEUE' }, '/targetQueueId'],
      [{ lockToken: lock.token, type: 'TRANSFORM_JOB_AND_RECREATE_IN_QUEUE', targetQueueId: 'default' }, '/targetQueueId'],
      [{ lockToken: lock.token, type: 'TRANSFORM_JOB_AND_RECREATE_IN_QUEUE', targetQueueId: 'nope' }, '/targetQueueId'],
      // The child-safety queue is not shown to a moderator without VIEW_CHILD_SAFETY_DATA.
      [{ lockToken: lock.token, type: 'TRANSFORM_JOB_AND_RECREATE_IN_QUEUE', targetQueueId: 'child-safety' }, '/targetQueueId'],
    ];
    for (const [body, pointer] of cases) {
      const response = await decide(world, moderator, job.jobId, body);
      expect(response.status, JSON.stringify(body)).toBe(400);
      const error = (await response.json()) as ErrorBody;
      expect(error.errors[0]?.type).toEqual(['/errors/invalid-user-input']);
      expect(
        error.errors.map((e) => e.pointer),
        JSON.stringify(body),
      ).toContain(pointer);
    }
    expect(decisionEvents(world)).toBe(before);
    // The job is still open, and the lock still the moderator's.
    expect((await decide(world, moderator, job.jobId, { lockToken: lock.token, type: 'IGNORE' })).status).toBe(200);
  });

  it('TRANSFORM_JOB_AND_RECREATE_IN_QUEUE closes the job with its target recorded', async () => {
    const moderator = world.sessions['MODERATOR']!;
    await submitPost(world, 'p-move', 'please review me');
    const { job, lock } = await claimJobOf(world, moderator, 'default', 'p-move');
    const response = await decide(world, moderator, job.jobId, {
      lockToken: lock.token,
      type: 'TRANSFORM_JOB_AND_RECREATE_IN_QUEUE',
      targetQueueId: 'spam',
      note: 'belongs with spam',
    });
    expect(response.status).toBe(200);
    const decided = loggedEvents(world.dataDir, 'ReviewJobDecided').find((e) => e.data['jobId'] === job.jobId)!;
    expect(decided.data).toMatchObject({ type: 'TRANSFORM_JOB_AND_RECREATE_IN_QUEUE', targetQueueId: 'spam', deliveryIds: [] });
    // Recreated in the target queue, from this job, its history carried.
    const moved = await claimJobOf(world, moderator, 'spam', 'p-move');
    // Its sources: the rule's request it carries, and the move.
    expect(moved.job).toMatchObject({ queueId: 'spam', source: 'MRT_JOB', sources: ['RULE_EXECUTION', 'MRT_JOB'] });
    expect(moved.job.jobId).not.toBe(job.jobId);
    const opened = loggedEvents(world.dataDir, 'ReviewJobOpened').find((e) => e.data['jobId'] === moved.job.jobId)!;
    expect(opened.data).toMatchObject({ queueId: 'spam', request: { source: 'MRT_JOB', fromJobId: job.jobId, requestId: summaryId(decided) } });
    expect((opened.data['carried'] as unknown[]).length).toBe(1);
    expect((await decide(world, moderator, moved.job.jobId, { lockToken: moved.lock.token, type: 'IGNORE' })).status).toBe(200);
  });

  it('a reported item: the decision callback carries every report in custom.reportHistory; no email or reason in plaintext in the log', async () => {
    const moderator = world.sessions['MODERATOR']!;
    for (const [reporter, reason] of [
      ['r-1', 'this is a scam'],
      ['r-2', 'stole my photos'],
    ] as const) {
      const reported = await world.api('POST', '/api/v1/report', {
        reporter: { kind: 'user', id: reporter, typeId: 'user' },
        reportedAt: '2026-11-20T10:00:00Z',
        reportedItem: { id: 'p-reported', typeId: 'post', data: { text: 'a reported post', author: { id: 'author-of-p-reported', typeId: 'user' } } },
        reportedForReason: { reason },
      });
      expect(reported.status).toBe(201);
    }
    const claimed = await waitFor(async () => {
      const response = await world.call(moderator, 'POST', '/api/console/v1/queues/default/claim');
      if (response.status !== 200) return undefined;
      const body = (await response.json()) as Claimed & { job: { reportCount: number } };
      if (body.job.reportCount === 2) return body;
      // Claimed before the second report was merged: give it back and wait for the merge.
      await world.call(moderator, 'DELETE', `/api/console/v1/jobs/${body.job.jobId}/lock`, { lockToken: body.lock.token });
      return undefined;
    }, 'the job of the reported post with both reports');
    expect(claimed.job.item.id).toBe('p-reported');
    const response = await decide(world, moderator, claimed.job.jobId, {
      lockToken: claimed.lock.token,
      type: 'CUSTOM_ACTION',
      actionIds: ['remove'],
      policyIds: ['spam'],
      reason: 'scam confirmed',
    });
    expect(response.status).toBe(200);
    const [callback] = await waitFor(
      () => (callbacksFor(receiver, 'p-reported').length > 0 ? callbacksFor(receiver, 'p-reported') : undefined),
      'the decision callback of the reported post',
    );
    const body = JSON.parse(callback!.body) as { actorEmail: string; decisionReason: string; custom: { reason: string; reportHistory: unknown[] } };
    expect(body.actorEmail).toBe('moderator@rev.example');
    expect(body.decisionReason).toBe('scam confirmed');
    expect(body.custom.reason).toBe('scam confirmed');
    expect(body.custom.reportHistory).toEqual([
      { reason: 'this is a scam', reporter: { kind: 'user', id: 'r-1', typeId: 'user' } },
      { reason: 'stole my photos', reporter: { kind: 'user', id: 'r-2', typeId: 'user' } },
    ]);
    const log = rawLog(world.dataDir);
    for (const secret of ['moderator@rev.example', 'this is a scam', 'stole my photos']) expect(log).not.toContain(secret);
  });

  it('SUBMIT_CHILD_SAFETY_REPORT: 403 without VIEW_CHILD_SAFETY_DATA; a child-safety moderator records one, and the export lists it', async () => {
    const moderator = world.sessions['MODERATOR']!;
    await submitPost(world, 'p-cs-denied', 'please review me');
    const denied = await claimJobOf(world, moderator, 'default', 'p-cs-denied');
    const forbidden = await decide(world, moderator, denied.job.jobId, { lockToken: denied.lock.token, type: 'SUBMIT_CHILD_SAFETY_REPORT' });
    expect(forbidden.status).toBe(403);
    expect((await decide(world, moderator, denied.job.jobId, { lockToken: denied.lock.token, type: 'IGNORE' })).status).toBe(200);
    expect((await world.call(moderator, 'GET', '/api/console/v1/child-safety-reports')).status).toBe(403);

    const csModerator = world.sessions['CHILD_SAFETY_MODERATOR']!;
    await submitPost(world, 'p-cs', 'csam-test', { images: ['https://media.example/p-cs.jpg'] });
    const { job, lock } = await claimJobOf(world, csModerator, 'child-safety', 'p-cs');
    const response = await decide(world, csModerator, job.jobId, {
      lockToken: lock.token,
      type: 'SUBMIT_CHILD_SAFETY_REPORT',
      reason: 'known material',
      note: 'escalated',
    });
    expect(response.status).toBe(200);
    const page = (await (await world.call(csModerator, 'GET', '/api/console/v1/child-safety-reports?limit=10')).json()) as {
      reports: Array<Record<string, unknown>>;
      total: number;
      nextOffset: number | null;
    };
    expect(page.total).toBe(1);
    expect(page.nextOffset).toBeNull();
    expect(page.reports[0]).toMatchObject({
      jobId: job.jobId,
      item: { id: 'p-cs', typeId: 'post', typeName: 'Post', version: 0 },
      creator: { id: 'author-of-p-cs', typeId: 'user' },
      reporters: [],
      incident: { reportReasons: [], moderatorReason: 'known material', note: 'escalated' },
      mediaUrls: ['https://media.example/p-cs.jpg'],
      reportedBy: { userId: world.userIds['CHILD_SAFETY_MODERATOR'], email: 'child_safety_moderator@rev.example' },
    });
    const bad = await world.call(csModerator, 'GET', '/api/console/v1/child-safety-reports?limit=0');
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as ErrorBody).errors[0]?.pointer).toBe('/limit');
  });

  it('an EXTERNAL_MODERATOR may not decide', async () => {
    const response = await decide(world, world.sessions['EXTERNAL_MODERATOR']!, 'any-job', { lockToken: 'x', type: 'IGNORE' });
    expect(response.status).toBe(403);
  });

  it('actioning an item closes its other open jobs with AUTOMATIC_CLOSE (ITEM_ACTIONED)', async () => {
    const moderator = world.sessions['MODERATOR']!;
    await submitPost(world, 'p-both', 'review me, csam-test');
    const { job, lock } = await claimJobOf(world, moderator, 'default', 'p-both');
    const other = await waitFor(
      () =>
        loggedEvents(world.dataDir, 'ReviewJobOpened').find((e) => e.data['queueId'] === 'child-safety' && (e.data['item'] as { id: string }).id === 'p-both'),
      'the child-safety job of the item',
    );
    const response = await decide(world, moderator, job.jobId, { lockToken: lock.token, type: 'CUSTOM_ACTION', actionIds: ['remove'], policyIds: ['spam'] });
    expect(response.status).toBe(200);
    const { decisionId } = (await response.json()) as { decisionId: string };
    const closed = await waitFor(
      () => loggedEvents(world.dataDir, 'ReviewJobDecided').find((e) => e.data['jobId'] === other.data['jobId']),
      'the other job closed',
    );
    expect(closed.data).toMatchObject({ type: 'AUTOMATIC_CLOSE', closeReason: 'ITEM_ACTIONED', actor: null });
    expect(closed.data['decisionId']).not.toBe(decisionId);
    const claimAgain = await world.call(world.sessions['CHILD_SAFETY_MODERATOR']!, 'POST', '/api/console/v1/queues/child-safety/claim');
    expect(claimAgain.status).toBe(204);
  });
});

describe('review decisions under the organization settings, and an expired lock', () => {
  let world: ReviewWorld;
  let receiver: Receiver;

  beforeAll(async () => {
    receiver = await startReceiver();
    const config = reviewOrgConfig(receiver.url)
      .replace(
        'org: { id: rev, name: Review Org }',
        'org: { id: rev, name: Review Org, settings: { requireDecisionReason: true, requirePolicyForDecisions: true } }',
      )
      .replace('lockTimeoutSeconds: 600', 'lockTimeoutSeconds: 1');
    world = await startReviewWorld(config, ['MODERATOR']);
  }, 60_000);

  afterAll(async () => {
    await world?.warden.stop();
    await receiver?.close();
  });

  it('requireDecisionReason and requirePolicyForDecisions are enforced; once the lock expired, the decision is 409 lock-expired', async () => {
    const moderator = world.sessions['MODERATOR']!;
    await submitPost(world, 'p-strict', 'please review me');
    const { job, lock } = await claimJobOf(world, moderator, 'default', 'p-strict');
    const before = decisionEvents(world);

    const noReason = await decide(world, moderator, job.jobId, { lockToken: lock.token, type: 'IGNORE' });
    expect(noReason.status).toBe(400);
    expect(((await noReason.json()) as ErrorBody).errors.map((e) => e.pointer)).toEqual(['/reason']);

    const noPolicy = await decide(world, moderator, job.jobId, { lockToken: lock.token, type: 'CUSTOM_ACTION', actionIds: ['remove'], reason: 'spam' });
    expect(noPolicy.status).toBe(400);
    expect(((await noPolicy.json()) as ErrorBody).errors.map((e) => e.pointer)).toEqual(['/policyIds']);
    expect(decisionEvents(world)).toBe(before);

    await waitFor(() => Date.now() > Date.parse(lock.expiresAt) + 50, 'the lock to expire');
    const expired = await decide(world, moderator, job.jobId, {
      lockToken: lock.token,
      type: 'CUSTOM_ACTION',
      actionIds: ['remove'],
      policyIds: ['spam'],
      reason: 'spam',
    });
    expect(expired.status).toBe(409);
    expect(await errorType(expired)).toBe('/errors/lock-expired');
    expect(decisionEvents(world)).toBe(before);
  });
});
