import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deliveriesAt, REVIEW_PASSWORD, type ReviewWorld, reviewOrgConfig, type Session, startReceiver, startReviewWorld } from '../support/review-fixture.js';
import { waitFor } from '../support/wait-for.js';
import { consoleLogin, type RunningWarden, runCli, startWarden } from '../support/warden-process.js';

/**
 * A GDPR erasure run by one process reaches the states another process cached (docs/gdpr.md): an
 * api process (WARDEN_ROLE=api) beside the server that runs the erasure. The erased user `gone`
 * reported `stay`'s post; a moderator claimed its job through the api process (which folded the
 * job, the report's reason opened, into its cache) and decides it right after the erasure: the
 * decision's callback and its events must not carry the reason again, sealed under a new key.
 */
const REASON = 'gone-reported-reason-6d2e';
const gone = { id: 'gone', typeId: 'user' };
const stay = { id: 'stay', typeId: 'user' };

describe('GDPR erasure with an api process beside the worker', () => {
  let world: ReviewWorld;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let api: RunningWarden;

  beforeAll(async () => {
    receiver = await startReceiver();
    world = await startReviewWorld(reviewOrgConfig(receiver.url), ['ADMIN']);
    api = await startWarden({ ...world.env, WARDEN_ROLE: 'api' });
  }, 60_000);

  afterAll(async () => {
    await api?.stop();
    await world?.warden.stop();
    await receiver?.close();
  });

  const call = async (session: Session, method: string, path: string, body?: unknown) =>
    fetch(`${api.url}${path}`, {
      method,
      headers: {
        cookie: session.cookie,
        'x-csrf-token': session.csrfToken,
        origin: api.url,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });

  it("sends and records nothing of an erased reporter's reason in a decision the api process takes right after the erasure", async () => {
    const post = { id: 'stay-post', typeId: 'post', data: { text: 'an ordinary post', author: stay } };
    expect((await world.api('POST', '/api/v1/items/async', { items: [post] })).status).toBe(202);
    const reported = await world.api('POST', '/api/v1/report', {
      reporter: { kind: 'user', ...gone },
      reportedAt: '2026-11-23T12:00:00Z',
      reportedItem: post,
      reportedForReason: { policyId: 'spam', reason: REASON },
    });
    expect(reported.status).toBe(201);
    const moderator = await consoleLogin(api.url, 'admin@rev.example', REVIEW_PASSWORD);
    const claimed = await waitFor(async () => {
      const r = await call(moderator, 'POST', '/api/console/v1/queues/default/claim');
      return (
        r.status === 200 &&
        ((await r.json()) as { job: { jobId: string; item: { id: string }; reports: Array<{ reason: string | null }> }; lock: { token: string } })
      );
    }, 'the review job of stay-post');
    expect(claimed.job.item.id).toBe('stay-post');
    expect(claimed.job.reports.map((r) => r.reason)).toEqual([REASON]);

    const requested = await world.api('POST', '/api/v1/gdpr/delete', gone);
    expect(requested.status).toBe(202);
    const { requestId } = (await requested.json()) as { requestId: string };
    await waitFor(async () => {
      const r = await world.api('GET', `/api/v1/gdpr/delete/${requestId}`);
      return ((await r.json()) as { state: string }).state === 'COMPLETED';
    }, 'the deletion to complete');

    const decided = await call(moderator, 'POST', `/api/console/v1/jobs/${claimed.job.jobId}/decision`, {
      lockToken: claimed.lock.token,
      type: 'CUSTOM_ACTION',
      actionIds: ['remove'],
      policyIds: ['spam'],
      reason: 'decided after the erasure',
    });
    expect(decided.status, await decided.clone().text()).toBe(200);
    const [sent] = await waitFor(() => {
      const found = deliveriesAt(receiver.received, '/hooks/remove', (id) => id === 'stay-post');
      return found.length > 0 && found;
    }, 'the removal callback of stay-post');
    expect(sent!.body).not.toContain(REASON);
    expect(JSON.parse(sent!.body)).toMatchObject({ custom: { reportHistory: [{ reason: null, reporter: { kind: 'user', ...gone } }] } });

    // Nor readable in what Warden keeps: an export with personal data opens every sealed field.
    const file = join(world.dataDir, 'after-deletion.ndjson');
    const exported = await runCli(['audit', 'export', '--org', 'rev', '--include-personal-data', '--out', file], world.env);
    expect(exported.code, exported.stderr).toBe(0);
    const text = readFileSync(file, 'utf8');
    expect(text).toContain('decided after the erasure');
    expect(text).not.toContain(REASON);
  });
});
