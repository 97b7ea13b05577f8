import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loggedEvents } from '../support/config-files.js';
import { type ReviewWorld, REVIEW_PASSWORD, reviewOrgConfig, startReceiver, startReviewWorld } from '../support/review-fixture.js';
import { waitFor } from '../support/wait-for.js';
import { consoleLogin, freshDataDir, runCli, type RunningWarden, startWarden, testEnv } from '../support/warden-process.js';

interface Claimed {
  job: { jobId: string; item: { id: string } };
  lock: { token: string };
}

describe('replay to a point in time, and read-model digests', () => {
  let world: ReviewWorld;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let replayed: RunningWarden | undefined;
  const jobs: string[] = [];
  let between: string;
  const outDir = join(freshDataDir(), 'replayed');

  const decideNext = async () => {
    const claimed = await waitFor(async () => {
      const r = await world.call(world.sessions['ADMIN']!, 'POST', '/api/console/v1/queues/default/claim');
      return r.status === 200 ? ((await r.json()) as Claimed) : undefined;
    }, 'a job to claim');
    const decided = await world.call(world.sessions['ADMIN']!, 'POST', `/api/console/v1/jobs/${claimed.job.jobId}/decision`, {
      lockToken: claimed.lock.token,
      type: 'IGNORE',
    });
    expect(decided.status).toBe(200);
    jobs.push(claimed.job.jobId);
    return waitFor(() => loggedEvents(world.dataDir, 'ReviewJobDecided').find((e) => e.data['jobId'] === claimed.job.jobId), 'the decision in the log');
  };
  const fileDigest = () =>
    createHash('sha256')
      .update(readFileSync(join(world.dataDir, 'warden.db')))
      .digest('hex');
  const digest = async (dataDir: string) => {
    const r = await runCli(['read-models', 'digest'], testEnv(dataDir));
    expect(r.code, r.stderr).toBe(0);
    return r.stdout;
  };

  beforeAll(async () => {
    receiver = await startReceiver();
    world = await startReviewWorld(reviewOrgConfig(receiver.url), ['ADMIN']);
    const posts = ['r-1', 'r-2'].map((id) => ({ id, typeId: 'post', data: { text: `please review me ${id}`, author: { id: 'u-r', typeId: 'user' } } }));
    for (const post of posts) expect((await world.api('POST', '/api/v1/items/async', { items: [post] })).status).toBe(202);
    await waitFor(() => loggedEvents(world.dataDir, 'ReviewJobOpened').length === 2 || undefined, 'both jobs open');
    const first = await decideNext();
    const firstAt = String(first.metadata['occurredAt']);
    // A moment strictly after the first decision, before the second: the clock has moved on.
    between = await waitFor(() => (new Date().toISOString() > firstAt ? new Date().toISOString() : undefined), 'the clock past the first decision');
    await waitFor(() => (new Date().toISOString() > between ? true : undefined), 'the clock past the replay point');
    await decideNext();
    await world.warden.stop();
  }, 90_000);

  afterAll(async () => {
    await replayed?.stop();
    await receiver?.close();
  });

  it('rebuilds the same read models twice: equal digests, one line per collection', async () => {
    const before = await digest(world.dataDir);
    expect(before).toMatch(/^collection\s+documents\s+sha256\n/);
    expect(before).toMatch(/\nreview_jobs\s+2\s+[0-9a-f]{64}\n/);
    for (let i = 0; i < 2; i++) {
      const rebuilt = await runCli(['rebuild-read-models'], world.env);
      expect(rebuilt.code, rebuilt.stderr).toBe(0);
      expect(await digest(world.dataDir)).toBe(before);
    }
    // One changed document changes its collection's digest, and only that one.
    const db = new Database(join(world.dataDir, 'read-models.db'));
    try {
      db.prepare(`UPDATE "rm/review_jobs" SET doc = json_set(doc, '$.tampered', 1) WHERE id = (SELECT min(id) FROM "rm/review_jobs")`).run();
    } finally {
      db.close();
    }
    const changed = (await digest(world.dataDir)).split('\n');
    const differing = before.split('\n').filter((line, i) => line !== changed[i]);
    expect(differing).toHaveLength(1);
    expect(differing[0]).toMatch(/^review_jobs\s/);
  });

  it('replays into a new directory up to a time between two decisions, leaving the source untouched', async () => {
    const source = fileDigest();
    const r = await runCli(['replay', '--until', between, '--out', outDir], world.env);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^Replayed \d+ event\(s\), up to log position \d+, into /);
    // How to serve it: on the port after the server's own (its PORT, as this call read it).
    const port = Number(world.env['PORT'] ?? 3000);
    expect(r.stdout).toContain(`WARDEN_READ_ONLY=true PORT=${port + 1} npm start (a port of its own, beside the server on ${port})`);
    expect(fileDigest()).toBe(source);
    // A directory that is not empty is refused.
    const again = await runCli(['replay', '--until', between, '--out', outDir], world.env);
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(/is not empty/);
    // The same instant as an offset of hours, and without an offset under another time zone (UTC, as audit export reads it).
    const position = (out: string) => /up to log position (\d+)/.exec(out)?.[1];
    const at = new Date(between);
    const plusTwo = `${new Date(at.getTime() + 2 * 3600_000).toISOString().slice(0, 23)}+02`;
    const zoneless = between.slice(0, 23);
    for (const [until, tz] of [
      [plusTwo, 'UTC'],
      [zoneless, 'America/New_York'],
    ] as const) {
      const other = await runCli(['replay', '--until', until, '--out', join(freshDataDir(), 'replayed')], { ...world.env, TZ: tz });
      expect(other.code, other.stderr).toBe(0);
      expect(position(other.stdout), `${until} (TZ=${tz})`).toBe(position(r.stdout));
    }
  });

  it('serves the queue as it was then from a read-only server, which refuses every change', async () => {
    replayed = await startWarden(testEnv(outDir, { WARDEN_READ_ONLY: 'true' }));
    const session = await consoleLogin(replayed.url, 'admin@rev.example', REVIEW_PASSWORD);
    const view = async (jobId: string) => {
      const res = await fetch(`${replayed!.url}/api/console/v1/jobs/${jobId}`, { headers: { cookie: session.cookie } });
      expect(res.status).toBe(200);
      return (await res.json()) as { state: string; decision: { type: string } | null };
    };
    expect(await view(jobs[0]!)).toMatchObject({ state: 'CLOSED', decision: { type: 'IGNORE' } });
    expect(await view(jobs[1]!)).toMatchObject({ state: 'PENDING', decision: null });
    const queues = await fetch(`${replayed.url}/api/console/v1/queues`, { headers: { cookie: session.cookie } });
    expect(((await queues.json()) as { queues: Array<{ id: string; pending: number }> }).queues.find((q) => q.id === 'default')!.pending).toBe(1);
    const claim = await fetch(`${replayed.url}/api/console/v1/queues/default/claim`, {
      method: 'POST',
      headers: { cookie: session.cookie, 'x-csrf-token': session.csrfToken },
    });
    expect(claim.status).toBe(503);
    expect(((await claim.json()) as { errors: Array<{ detail: string }> }).errors[0]!.detail).toMatch(/read-only/);
    expect(loggedEvents(outDir, 'ReviewJobClaimed')).toHaveLength(1);
  });
});
