import { afterAll, describe, expect, it } from 'vitest';
import { loggedEvents, writeConfig } from '../support/config-files.js';
import { REVIEW_PASSWORD, reviewOrgConfig, type Session, startReceiver } from '../support/review-fixture.js';
import { waitFor } from '../support/wait-for.js';
import { consoleLogin, consoleUserCommand, freshDataDir, runCliBatch, type RunningWarden, startWarden, testEnv } from '../support/warden-process.js';

const JOBS = 300;
const MODERATORS = 6;
const LOCK_SECONDS = 2;

/**
 * Kill -9 while moderators decide. After the restart no decision is lost (every 200 the
 * moderators saw is in the log) or applied twice (one ReviewJobDecided per job), and the jobs
 * held at the kill are claimable again once their lock times out.
 */
describe('review decisions across a crash', () => {
  let warden: RunningWarden | undefined;
  let receiver: Awaited<ReturnType<typeof startReceiver>> | undefined;
  afterAll(async () => {
    await warden?.stop();
    await receiver?.close();
  });

  it('loses no decision, applies none twice, strands no job after kill -9', async () => {
    receiver = await startReceiver();
    const dataDir = freshDataDir();
    const env = testEnv(dataDir, { WARDEN_RATE_LIMIT_PER_SECOND: '100000', WARDEN_RATE_LIMIT_BURST: '100000' });
    const config = reviewOrgConfig(receiver.url).replace('lockTimeoutSeconds: 600', `lockTimeoutSeconds: ${LOCK_SECONDS}`);
    const emails = Array.from({ length: MODERATORS }, (_, i) => `crash-${i}@rev.example`);
    // One CLI process for the set-up (test/support/warden-process.ts, runCliBatch).
    const [, keyMade] = await runCliBatch(env, [
      ['apply', writeConfig(config)],
      ['api-key', 'create', '--org', 'rev'],
      ...emails.map((email) => consoleUserCommand('rev', email, REVIEW_PASSWORD, ['MODERATOR'])),
    ]);
    const key = keyMade!.at(-1)!;
    warden = await startWarden(env);
    let base = warden.url;
    const sessions: Session[] = [];
    for (const email of emails) sessions.push(await consoleLogin(base, email, REVIEW_PASSWORD));
    const call = (session: Session, method: string, path: string, body?: unknown) =>
      fetch(base + path, {
        method,
        headers: { cookie: session.cookie, 'x-csrf-token': session.csrfToken, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    const items = Array.from({ length: JOBS }, (_, i) => ({ id: `k${i}`, typeId: 'post', data: { text: `review me ${i}` } }));
    const submitted = await fetch(base + '/api/v1/items/async', {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      body: JSON.stringify({ items }),
    });
    expect(submitted.status).toBe(202);
    await waitFor(() => loggedEvents(dataDir, 'ReviewJobOpened').length === JOBS, { what: `${JOBS} jobs`, timeoutMs: 60_000, intervalMs: 100 });

    const confirmed = new Set<string>();
    let crashed = false;
    const work = async (session: Session) => {
      for (;;) {
        let claim: Response;
        try {
          claim = await call(session, 'POST', '/api/console/v1/queues/default/claim');
        } catch {
          if (crashed) return; // the server is gone: this moderator stops here
          throw new Error('claim failed before the crash');
        }
        if (claim.status === 204) return;
        if (claim.status !== 200) throw new Error(`claim ${claim.status} ${await claim.text()}`);
        const { job, lock } = (await claim.json()) as { job: { jobId: string }; lock: { token: string } };
        try {
          const decided = await call(session, 'POST', `/api/console/v1/jobs/${job.jobId}/decision`, { lockToken: lock.token, type: 'IGNORE' });
          if (decided.status === 200) confirmed.add(job.jobId);
        } catch {
          if (crashed) return;
          throw new Error('decision failed before the crash');
        }
      }
    };
    const working = Promise.all(sessions.map(work));
    await waitFor(() => confirmed.size >= JOBS / 3, { what: 'a third of the jobs decided', timeoutMs: 60_000, intervalMs: 5 });
    crashed = true;
    await warden.stop('SIGKILL');
    await working;

    const afterKill = loggedEvents(dataDir, 'ReviewJobDecided').map((e) => String(e.data['jobId']));
    for (const jobId of confirmed) expect(afterKill).toContain(jobId);

    warden = await startWarden(env);
    base = warden.url;
    // The sessions survive the restart; jobs locked at the kill come back once their lock times out.
    crashed = false;
    const finish = async (session: Session) => {
      for (;;) {
        const claim = await call(session, 'POST', '/api/console/v1/queues/default/claim');
        if (claim.status === 204) {
          if (loggedEvents(dataDir, 'ReviewJobDecided').length >= JOBS) return;
          continue;
        }
        expect(claim.status).toBe(200);
        const { job, lock } = (await claim.json()) as { job: { jobId: string }; lock: { token: string } };
        const decided = await call(session, 'POST', `/api/console/v1/jobs/${job.jobId}/decision`, { lockToken: lock.token, type: 'IGNORE' });
        expect([200, 409]).toContain(decided.status);
      }
    };
    await Promise.all(sessions.map(finish));
    const decisions = loggedEvents(dataDir, 'ReviewJobDecided').map((e) => String(e.data['jobId']));
    expect(decisions).toHaveLength(JOBS);
    expect(new Set(decisions).size).toBe(JOBS);
  }, 240_000);
});
