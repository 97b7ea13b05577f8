import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventCount, loggedEvents } from '../support/config-files.js';
import { type ReviewWorld, REVIEW_PASSWORD, reviewOrgConfig, startReceiver, startReviewWorld } from '../support/review-fixture.js';
import { waitFor } from '../support/wait-for.js';
import { consoleLogin, freshDataDir, runCli, type RunningWarden, startWarden, testEnv } from '../support/warden-process.js';

/**
 * Issue 31, item 6: a replay is checked against the audit chain recorded beside the source (an
 * event edited in the unsigned tail is refused), a failed replay leaves --out reusable, and the
 * replayed server appends nothing to its log, console sign-ins included (docs/audit.md, "Replay").
 */
describe('replay checks the recorded chain, and the replayed server is read-only', () => {
  let world: ReviewWorld;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let replayed: RunningWarden | undefined;
  let decidedAt: number;
  const outDir = join(freshDataDir(), 'replayed');
  const isEmptyOrAbsent = (dir: string) => !existsSync(dir) || readdirSync(dir).length === 0;
  const withLog = <T>(run: (db: Database.Database) => T): T => {
    const db = new Database(join(world.dataDir, 'warden.db'));
    try {
      return run(db);
    } finally {
      db.close();
    }
  };

  beforeAll(async () => {
    receiver = await startReceiver();
    // No checkpoint after the first: the decision stays in the unsigned tail.
    world = await startReviewWorld(reviewOrgConfig(receiver.url), ['ADMIN'], { WARDEN_AUDIT_CHECKPOINT_SECONDS: '86400' });
    const post = { id: 'rc-1', typeId: 'post', data: { text: 'please review me rc-1', author: { id: 'u-rc', typeId: 'user' } } };
    expect((await world.api('POST', '/api/v1/items/async', { items: [post] })).status).toBe(202);
    const claimed = await waitFor(async () => {
      const r = await world.call(world.sessions['ADMIN']!, 'POST', '/api/console/v1/queues/default/claim');
      return r.status === 200 ? ((await r.json()) as { job: { jobId: string }; lock: { token: string } }) : undefined;
    }, 'a job to claim');
    const decided = await world.call(world.sessions['ADMIN']!, 'POST', `/api/console/v1/jobs/${claimed.job.jobId}/decision`, { lockToken: claimed.lock.token, type: 'IGNORE' });
    expect(decided.status).toBe(200);
    await waitFor(() => loggedEvents(world.dataDir, 'ReviewJobDecided').length === 1 || undefined, 'the decision in the log');
    // An export brings the chain up to the head of the log: every event has its recorded link.
    expect((await world.call(world.sessions['ADMIN']!, 'GET', '/api/console/v1/audit/export')).status).toBe(200);
    await world.warden.stop();
    decidedAt = withLog((db) => (db.prepare("SELECT position FROM events WHERE type = 'ReviewJobDecided'").get() as { position: number }).position);
  }, 90_000);

  afterAll(async () => {
    await replayed?.stop();
    await receiver?.close();
  });

  it('refuses a log whose event was edited after the last checkpoint, and leaves --out empty', async () => {
    const original = withLog((db) => (db.prepare('SELECT data FROM events WHERE position = ?').get(decidedAt) as { data: string }).data);
    expect(JSON.parse(original)).toMatchObject({ type: 'IGNORE' });
    withLog((db) => db.prepare("UPDATE events SET data = json_set(data, '$.type', 'CUSTOM_ACTION') WHERE position = ?").run(decidedAt));
    try {
      const r = await runCli(['replay', '--until', String(decidedAt + 1000), '--out', outDir], world.env);
      expect(r.code, r.stdout + r.stderr).toBe(1);
      expect(r.stdout).toContain(`log position ${decidedAt} (ReviewJobDecided of rev`);
      expect(r.stdout).toMatch(/the event was changed in the log/);
      expect(r.stdout).toMatch(/^REFUSED: .*1 problem\(s\)/m);
      expect(isEmptyOrAbsent(outDir)).toBe(true);
    } finally {
      withLog((db) => db.prepare('UPDATE events SET data = ? WHERE position = ?').run(original, decidedAt));
    }
  });

  it('leaves --out reusable after a failed replay, and replays the untouched log with its check', async () => {
    const bad = await runCli(['replay', '--until', 'yesterday', '--out', outDir], world.env);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--until must be an ISO 8601 time/);
    expect(isEmptyOrAbsent(outDir)).toBe(true);
    const r = await runCli(['replay', '--until', String(decidedAt + 1000), '--out', outDir], world.env);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^Checked against the recorded audit chain: \d+ event\(s\) match their recorded link, \d+ signed checkpoint\(s\) verified/m);
    expect(r.stdout).not.toMatch(/WARNING/);
  });

  it('signs in, out and fails a sign-in on the replayed server without appending to its log', async () => {
    replayed = await startWarden(testEnv(outDir, { WARDEN_READ_ONLY: 'true' }));
    const before = eventCount(outDir);
    const session = await consoleLogin(replayed.url, 'admin@rev.example', REVIEW_PASSWORD);
    const me = (cookie: string) => fetch(`${replayed!.url}/api/console/v1/me`, { headers: { cookie } });
    expect((await me(session.cookie)).status).toBe(200);
    const wrong = await fetch(`${replayed.url}/api/console/v1/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'admin@rev.example', password: 'not the password' }),
    });
    expect(wrong.status).toBe(401);
    const out = await fetch(`${replayed.url}/api/console/v1/session`, { method: 'DELETE', headers: { cookie: session.cookie, 'x-csrf-token': session.csrfToken } });
    expect(out.status).toBe(204);
    expect((await me(session.cookie)).status).toBe(401);
    expect(eventCount(outDir)).toBe(before);
  });
});
