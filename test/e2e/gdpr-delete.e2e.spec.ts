import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loggedEvents } from '../support/config-files.js';
import {
  claimNext,
  decideClaimed,
  deliveriesAt,
  REVIEW_PASSWORD,
  type ReviewWorld,
  reviewOrgConfig,
  startReceiver,
  startReviewWorld,
} from '../support/review-fixture.js';
import { waitFor } from '../support/wait-for.js';
import { consoleLogin, createConsoleUser, createOrgWithKey, runCli } from '../support/warden-process.js';

/**
 * The erased user `gone`: their user item, a post the rules send to review (an open job), a post
 * they appeal (an open appeal job), and a report they filed against `stay`'s post. `stay` keeps
 * their own open job, data and report-free history. The same person is a moderator in the console
 * (`SECRETS.email`), who decided on posts of `other`, a user who is not erased: a custom action (its
 * callback and delivery) and a child-safety report, each holding the moderator's email; and, as a
 * manager, removed another of `other`'s posts with a bulk action (the request, the execution's
 * callback and delivery holding it).
 */
const SECRETS = {
  name: 'Gone Person 7f3a',
  postText: 'please review me gone-secret-text-91b2',
  appealedText: 'gone-appealed-text-2a9c',
  reportReason: 'gone-report-reason-c4d1',
  appealReason: 'gone-appeal-reason-e8f0',
  age: '4127.25',
  email: 'gone-person-3b7e@rev.example',
  /** The path of an image of theirs (Warden fetches and hashes it, recording a MediaHashed). */
  mediaPath: 'gone-photo-path-d81c',
  /** The path of the pre-signed image of their post that a moderator reports to child safety. */
  reportedMediaPath: 'gone-cs-photo-0f62',
};
/** A pre-signed URL's credential and signature: never in plaintext in anything Warden writes, before a deletion or after. */
const SIGNATURE = '3e9b1c7d5a2f40e8b6c4d1a9f7e5c3b1a0d8f6e4c2b0a9e7d5c3b1a9f8e6d4c2';
const CREDENTIAL = 'AKIAGONE5Q2RZ7X3';
const STAY_TEXT = 'please review me stay-text-55d0';
/** A rule that compares a number the user gave, with no signal: its explanation records the number as the condition saw it. */
const AGE_RULE = `  - id: young
    name: Young
    status: LIVE
    itemTypeIds: [post]
    actionIds: [enqueue-to-mrt]
    conditionSet:
      conjunction: AND
      conditions:
        - { input: { field: age }, comparator: LT, value: 13 }
`;
/** The post type with that number. */
const withAge = (config: string) =>
  config
    .replace('\nrules:\n', `\nrules:\n${AGE_RULE}`)
    .replace(
      '      - { name: text, type: STRING, required: true }\n',
      '      - { name: text, type: STRING, required: true }\n      - { name: age, type: NUMBER }\n',
    );
const gone = { id: 'gone', typeId: 'user' };
const stay = { id: 'stay', typeId: 'user' };
const other = { id: 'other', typeId: 'user' };
/** `other`'s posts that the erased person decided on as a moderator, and the one they removed with a bulk action. */
const MODERATED = ['other-post', 'other-post-cs', 'other-post-bulk'];

type Receiver = Awaited<ReturnType<typeof startReceiver>>;
interface Deletion {
  requestId: string;
  state: 'PENDING' | 'COMPLETED';
  requestedAt: string;
  completedAt: string | null;
  erased: { dataKeys: number; items: number; reports: number; appeals: number; reviewJobsClosed: number };
}
interface ErrorBody {
  errors: Array<{ status: number; type: string[]; pointer?: string }>;
}

const DATA_FILES = ['warden.db', 'warden.db-wal', 'warden.db-shm', 'read-models.db', 'read-models.db-wal', 'read-models.db-shm'];

describe('POST /api/v1/gdpr/delete: crypto-shredding a user', () => {
  let world: ReviewWorld;
  let receiver: Receiver;
  let goneKey: Buffer;
  let deletion: Deletion;

  /** A pre-signed URL of an image of `gone`'s (the `i`th of an album), as object stores hand them out. */
  const presignedUrl = (i: number) =>
    `${receiver.url}/media/${SECRETS.reportedMediaPath}/${i}-${'album-photo-'.repeat(12)}.jpg?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=${CREDENTIAL}%2F20261123%2Fus-east-1%2Fs3%2Faws4_request&X-Amz-Date=20261123T120000Z&X-Amz-Expires=604800&X-Amz-SignedHeaders=host&X-Amz-Signature=${SIGNATURE}`;

  /** The data files' raw bytes, concatenated: what someone with the disk could read. */
  const rawFiles = () => Buffer.concat(DATA_FILES.filter((f) => existsSync(join(world.dataDir, f))).map((f) => readFileSync(join(world.dataDir, f))));
  const plaintextIn = (text: string) => Object.values(SECRETS).filter((secret) => text.includes(secret));

  const subjectKey = (subject: string): Buffer | undefined => {
    const db = new Database(join(world.dataDir, 'warden.db'), { readonly: true });
    try {
      return (db.prepare('SELECT key FROM subject_keys WHERE org_id = ? AND subject_id = ?').get('rev', subject) as { key: Buffer } | undefined)?.key;
    } finally {
      db.close();
    }
  };

  /** The review job opened for an item (the first, when several were). */
  const jobOf = (itemId: string, appeal = false) =>
    waitFor(
      () =>
        loggedEvents(world.dataDir, 'ReviewJobOpened').find(
          (e) => (e.data['item'] as { id: string }).id === itemId && Boolean((e.data['request'] as { appeal?: unknown }).appeal) === appeal,
        )?.data['jobId'] as string | undefined,
      `the review job of ${itemId}`,
    );

  const jobView = async (jobId: string) => {
    const r = await world.call(world.sessions['ADMIN']!, 'GET', `/api/console/v1/jobs/${jobId}`);
    expect(r.status).toBe(200);
    return r.text();
  };

  const request = (body: unknown) => world.api('POST', '/api/v1/gdpr/delete', body);
  const deletionOf = async (requestId: string): Promise<Deletion> => {
    const r = await world.api('GET', `/api/v1/gdpr/delete/${requestId}`);
    expect(r.status).toBe(200);
    return (await r.json()) as Deletion;
  };

  /** An item's history as the console shows it, personal fields opened (ADMIN). */
  const history = async (id: string) => {
    const r = await world.call(world.sessions['ADMIN']!, 'GET', `/api/console/v1/items/post/${id}/history?limit=500`);
    expect(r.status).toBe(200);
    return r.text();
  };

  /** Every API response and console view that showed the user's data before. */
  async function everythingShown(jobs: string[]): Promise<string> {
    const views = await Promise.all(jobs.map(jobView));
    const evaluations = await Promise.all(
      ['gone-post-1', 'gone-post-3', 'gone'].map(async (id) => {
        const r = await world.api('GET', `/api/v1/items/${id === 'gone' ? 'user' : 'post'}/${id}/evaluations`);
        return r.text();
      }),
    );
    const lists = await Promise.all([
      ...['default', 'appeals'].map(async (q) => (await world.call(world.sessions['ADMIN']!, 'GET', `/api/console/v1/jobs?queueId=${q}`)).text()),
      (await world.call(world.sessions['ADMIN']!, 'GET', '/api/console/v1/users')).text(),
      (await world.call(world.sessions['ADMIN']!, 'GET', `/api/console/v1/users/${goneConsoleUser}`)).text(),
      (await world.call(world.sessions['ADMIN']!, 'GET', '/api/console/v1/child-safety-reports')).text(),
      (await world.call(world.sessions['ADMIN']!, 'GET', '/api/console/v1/callbacks/deliveries')).text(),
      ...MODERATED.map(history),
    ]);
    return [...views, ...evaluations, ...lists].join('\n');
  }

  let goneJob: string;
  let appealJob: string;
  let reportedJob: string;
  let stayJob: string;
  /** The same person's console account. */
  let goneConsoleUser: string;

  beforeAll(async () => {
    receiver = await startReceiver();
    world = await startReviewWorld(withAge(reviewOrgConfig(receiver.url)), ['ADMIN']);
    goneConsoleUser = await createConsoleUser(
      world.dataDir,
      'rev',
      SECRETS.email,
      REVIEW_PASSWORD,
      ['MODERATOR', 'CHILD_SAFETY_MODERATOR', 'MODERATOR_MANAGER'],
      world.env,
    );
    // First, alone in their queues: the person, as a moderator, removes a post of `other`'s and
    // reports another to child safety.
    const moderated = [
      { id: 'other-post', typeId: 'post', data: { text: 'please review me other-text', author: other } },
      { id: 'other-post-cs', typeId: 'post', data: { text: 'csam-test other', author: other } },
    ];
    expect((await world.api('POST', '/api/v1/items/async', { items: moderated })).status).toBe(202);
    const moderator = await consoleLogin(world.warden.url, SECRETS.email, REVIEW_PASSWORD);
    const removal = await waitFor(() => claimNext(world, moderator, 'default'), 'the review job of other-post');
    expect(removal.job.item.id).toBe('other-post');
    await decideClaimed(world, moderator, removal, { type: 'CUSTOM_ACTION', actionIds: ['remove'], policyIds: ['spam'], reason: 'spam' });
    const report = await waitFor(() => claimNext(world, moderator, 'child-safety'), 'the child-safety job of other-post-cs');
    expect(report.job.item.id).toBe('other-post-cs');
    await decideClaimed(world, moderator, report, { type: 'SUBMIT_CHILD_SAFETY_REPORT', reason: 'known material' });
    // The platform's receiver gets the moderator's email, as sent before the erasure.
    const [sent] = await waitFor(() => {
      const found = deliveriesAt(receiver.received, '/hooks/remove', (id) => id === 'other-post');
      return found.length > 0 && found;
    }, 'the removal callback of other-post');
    expect(JSON.parse(sent!.body)).toMatchObject({ item: { id: 'other-post' }, actorEmail: SECRETS.email, decisionReason: 'spam' });
    // As a manager, a bulk action: its execution's callback names them too (docs/bulk-actions.md).
    expect(
      (await world.api('POST', '/api/v1/items/async', { items: [{ id: 'other-post-bulk', typeId: 'post', data: { text: 'bulk other-text', author: other } }] }))
        .status,
    ).toBe(202);
    const bulk = await world.call(moderator, 'POST', '/api/console/v1/bulk-actions', {
      actionId: 'remove',
      policyIds: ['spam'],
      reason: 'spam wave',
      items: [{ id: 'other-post-bulk', typeId: 'post' }],
    });
    expect(bulk.status, await bulk.clone().text()).toBe(202);
    const [bulkSent] = await waitFor(() => {
      const found = deliveriesAt(receiver.received, '/hooks/remove', (id) => id === 'other-post-bulk');
      return found.length > 0 && found;
    }, 'the bulk removal callback of other-post-bulk');
    expect(JSON.parse(bulkSent!.body)).toMatchObject({ item: { id: 'other-post-bulk' }, rules: [], actorEmail: SECRETS.email, decisionReason: 'spam wave' });
    const items = [
      { id: 'gone', typeId: 'user', data: { name: SECRETS.name } },
      {
        id: 'gone-post-1',
        typeId: 'post',
        // Not an image (the receiver answers an empty 200): recorded as a MediaHashed all the same, and logged as not hashed.
        data: { text: SECRETS.postText, age: Number(SECRETS.age), author: gone, images: [`${receiver.url}/media/${SECRETS.mediaPath}.jpg`] },
      },
      { id: 'gone-post-cs', typeId: 'post', data: { text: 'csam-test', author: gone, images: Array.from({ length: 16 }, (_, i) => presignedUrl(i)) } },
      { id: 'gone-post-3', typeId: 'post', data: { text: SECRETS.appealedText, author: gone } },
      { id: 'stay-post-1', typeId: 'post', data: { text: STAY_TEXT, author: stay } },
      { id: 'stay-post-2', typeId: 'post', data: { text: 'an ordinary post', author: stay } },
    ];
    expect((await world.api('POST', '/api/v1/items/async', { items })).status).toBe(202);
    const reported = await world.api('POST', '/api/v1/report', {
      reporter: { kind: 'user', ...gone },
      reportedAt: '2026-11-23T12:00:00Z',
      reportedItem: { id: 'stay-post-2', typeId: 'post', data: { text: 'an ordinary post', author: stay } },
      reportedForReason: { policyId: 'spam', reason: SECRETS.reportReason },
    });
    expect(reported.status).toBe(201);
    const appealed = await world.api('POST', '/api/v1/report/appeal', {
      appealId: 'gone-appeal-1',
      appealedBy: gone,
      appealedAt: '2026-11-23T12:30:00Z',
      actionedItem: { id: 'gone-post-3', typeId: 'post', data: { text: SECRETS.appealedText, author: gone } },
      actionsTaken: ['remove'],
      appealReason: SECRETS.appealReason,
      violatingPolicies: [{ id: 'spam' }],
    });
    expect(appealed.status).toBe(204);
    [goneJob, appealJob, reportedJob, stayJob] = await Promise.all([
      jobOf('gone-post-1'),
      jobOf('gone-post-3', true),
      jobOf('stay-post-2'),
      jobOf('stay-post-1'),
    ]);
    // A moderator reports the pre-signed images to child safety. With their note (their own words,
    // not the user's: it stays) the report's document spans several overflow pages, its media URLs
    // after the note: pages that the erasure's purge frees.
    const claimed = await waitFor(async () => {
      const r = await world.call(world.sessions['ADMIN']!, 'POST', '/api/console/v1/queues/child-safety/claim');
      return r.status === 200 && ((await r.json()) as { job: { jobId: string; item: { id: string } }; lock: { token: string } });
    }, 'the child-safety job of gone-post-cs');
    expect(claimed.job.item.id).toBe('gone-post-cs');
    const note = 'context '.repeat(600);
    const decided = await world.call(world.sessions['ADMIN']!, 'POST', `/api/console/v1/jobs/${claimed.job.jobId}/decision`, {
      lockToken: claimed.lock.token,
      type: 'SUBMIT_CHILD_SAFETY_REPORT',
      reason: 'known material',
      note,
    });
    expect(decided.status).toBe(200);
  }, 90_000);

  afterAll(async () => {
    await world?.warden.stop();
    await receiver?.close();
  });

  it("shows the user's data before the deletion (what the rest of this suite expects gone)", async () => {
    const shown = await everythingShown([goneJob, appealJob, reportedJob]);
    expect(plaintextIn(shown)).toEqual(
      expect.arrayContaining([
        SECRETS.postText,
        SECRETS.reportReason,
        SECRETS.appealReason,
        SECRETS.appealedText,
        SECRETS.email,
        SECRETS.mediaPath,
        SECRETS.reportedMediaPath,
      ]),
    );
    // The rule explanation holds the number as the condition saw it (the API and the log).
    const file = join(world.dataDir, 'before-deletion.ndjson');
    expect((await runCli(['audit', 'export', '--org', 'rev', '--include-personal-data', '--out', file], world.env)).code).toBe(0);
    const evaluated = readFileSync(file, 'utf8')
      .split('\n')
      .filter((line) => line.includes('"type":"ItemEvaluated"') && line.includes('gone-post-1'));
    // The export shows the sealed fields opened under `personal` (docs/audit.md, "Exporting").
    expect(evaluated.some((line) => JSON.stringify((JSON.parse(line) as { personal?: object }).personal ?? null).includes(SECRETS.age))).toBe(true);
    expect(shown).toContain(SECRETS.age);
    // What the person decided as a moderator names their email: the callback, its delivery, the child-safety report.
    // The history reads the audit trail's index, built in the background: it catches up only for an
    // item it has nothing of yet, and these posts' submissions were indexed before their decisions.
    for (const id of MODERATED) {
      const shownHistory = await waitFor(async () => {
        const text = await history(id);
        return text.includes(SECRETS.email) && text;
      }, `the decision on ${id} in its history`);
      expect(shownHistory, id).toContain(SECRETS.email);
    }
    const reports = (await (await world.call(world.sessions['ADMIN']!, 'GET', '/api/console/v1/child-safety-reports')).json()) as {
      reports: Array<{ item: { id: string }; reportedBy: { userId: string; email: string | null } | null }>;
    };
    expect(reports.reports.find((r) => r.item.id === 'other-post-cs')?.reportedBy).toEqual({ userId: goneConsoleUser, email: SECRETS.email });
    goneKey = subjectKey('user:gone')!;
    expect(goneKey).toHaveLength(32);
    expect(rawFiles().includes(goneKey)).toBe(true);
  });

  it("records the user's media results sealed, and logs an image it could not hash by its item and a digest, not its URL", async () => {
    const hashed = loggedEvents(world.dataDir, 'MediaHashed').filter((e) => (e.data['item'] as { id: string }).id === 'gone-post-1');
    expect(hashed).toHaveLength(1);
    expect(JSON.stringify(hashed)).not.toContain(SECRETS.mediaPath);
    const line = await waitFor(
      () =>
        world.warden
          .logs()
          .split('\n')
          .find((l) => l.includes('"media not hashed"') && l.includes('gone-post-1')),
      'the "media not hashed" line of gone-post-1',
    );
    expect(JSON.parse(line)).toMatchObject({
      item: { typeId: 'post', id: 'gone-post-1' },
      version: 0,
      media: expect.stringMatching(/^[0-9a-f]{32}$/),
      reason: 'not-an-image',
    });
    expect(line).not.toContain(receiver.url);
  });

  it("keeps a pre-signed URL's signature out of every data file, log and the child-safety export, which lists the URL without it", async () => {
    const exported = await world.call(world.sessions['ADMIN']!, 'GET', '/api/console/v1/child-safety-reports');
    const { reports } = (await exported.json()) as { reports: Array<{ item: { id: string }; mediaUrls: string[] }> };
    expect(reports.find((r) => r.item.id === 'gone-post-cs')?.mediaUrls).toEqual(Array.from({ length: 16 }, (_, i) => presignedUrl(i).replace(/\?.*/, '?…')));
    for (const secret of [SIGNATURE, CREDENTIAL]) {
      expect(rawFiles().includes(secret), `${secret} in the data files`).toBe(false);
      expect(world.warden.logs(), `${secret} in the server's log`).not.toContain(secret);
    }
  });

  it('answers 202 with a request id, then completes with what it erased', async () => {
    const r = await request({ ...gone, consoleEmail: SECRETS.email.toUpperCase() });
    expect(r.status).toBe(202);
    const { requestId } = (await r.json()) as { requestId: string };
    expect(requestId).toMatch(/^[0-9a-f-]{36}$/);
    deletion = await waitFor(async () => {
      const d = await deletionOf(requestId);
      return d.state === 'COMPLETED' && d;
    }, 'the deletion to complete');
    expect(deletion).toMatchObject({ requestId, completedAt: expect.any(String), requestedAt: expect.any(String) });
    expect(deletion.erased).toEqual({ dataKeys: 1, items: 4, reports: 1, appeals: 1, reviewJobsClosed: 2, consoleAccounts: 1 });
    // Ids only in the events: no personal data.
    const recorded = loggedEvents(world.dataDir).filter((e) => e.type.startsWith('GdprDeletion'));
    expect(recorded.map((e) => e.type)).toEqual(['GdprDeletionRequested', 'GdprDeletionCompleted']);
    expect(plaintextIn(JSON.stringify(recorded))).toEqual([]);
  });

  it("leaves the user's data in no API response or console view, and closes their items' open jobs", async () => {
    expect(plaintextIn(await everythingShown([goneJob, appealJob, reportedJob]))).toEqual([]);
    for (const jobId of [goneJob, appealJob]) {
      const view = JSON.parse(await jobView(jobId)) as { state: string; decision: { type: string } | null; item: { data: unknown } };
      expect(view).toMatchObject({ state: 'CLOSED', decision: { type: 'AUTOMATIC_CLOSE' }, item: { data: null } });
    }
    const account = (await (await world.call(world.sessions['ADMIN']!, 'GET', `/api/console/v1/users/${goneConsoleUser}`)).json()) as {
      state: string;
      email: unknown;
    };
    expect(account).toMatchObject({ state: 'disabled', email: null });
    // What the account decided stays, its email gone: the child-safety report names the account
    // without it; the removal's callback and delivery are still in the post's history, `other`'s post with them.
    const reports = (await (await world.call(world.sessions['ADMIN']!, 'GET', '/api/console/v1/child-safety-reports')).json()) as {
      reports: Array<{ item: { id: string }; reportedBy: unknown }>;
    };
    expect(reports.reports.find((r) => r.item.id === 'other-post-cs')?.reportedBy).toEqual({ userId: goneConsoleUser, email: null });
    const removed = await history('other-post');
    for (const kept of ['ActionCallbackRequested', 'CallbackDeliveryRequested', 'please review me other-text', goneConsoleUser])
      expect(removed).toContain(kept);
    const closes = loggedEvents(world.dataDir, 'ReviewJobDecided').filter((e) => [goneJob, appealJob].includes(e.data['jobId'] as string));
    expect(closes.map((e) => e.data['closeReason'])).toEqual(['USER_ERASED', 'USER_ERASED']);
  });

  it("keeps everyone else's data and jobs: the report's job stays open, without the erased reason", async () => {
    const stayView = JSON.parse(await jobView(stayJob)) as { state: string; item: { data: { text: string } } };
    expect(stayView.state).toBe('PENDING');
    expect(stayView.item.data.text).toBe(STAY_TEXT);
    const reported = JSON.parse(await jobView(reportedJob)) as { state: string; item: { data: { text: string } }; reports: Array<{ reason: unknown }> };
    expect(reported.state).toBe('PENDING');
    expect(reported.item.data.text).toBe('an ordinary post');
    expect(reported.reports.map((x) => x.reason)).toEqual([null]);
    expect(subjectKey('user:stay')).toHaveLength(32);
  });

  it("leaves neither the plaintext nor the forgotten key's bytes in the data files", () => {
    const raw = rawFiles();
    expect(raw.includes(goneKey)).toBe(false);
    expect(plaintextIn(raw.toString('latin1'))).toEqual([]);
    expect(subjectKey('user:gone')).toBeUndefined();
    expect(plaintextIn(world.warden.logs())).toEqual([]);
  });

  it('shows nothing of it again after rebuilding the read models', async () => {
    const rebuilt = await runCli(['rebuild-read-models'], world.env);
    expect(rebuilt.code).toBe(0);
    expect(plaintextIn(await everythingShown([goneJob, appealJob, reportedJob]))).toEqual([]);
    expect(plaintextIn(rawFiles().toString('latin1'))).toEqual([]);
    expect(JSON.parse(await jobView(stayJob))).toMatchObject({ state: 'PENDING', item: { data: { text: STAY_TEXT } } });
  });

  it('leaves nothing of it in an audit export, even one with personal data asked for, and the chain still verifies', async () => {
    const file = join(world.dataDir, 'after-deletion.ndjson');
    const exported = await runCli(['audit', 'export', '--org', 'rev', '--include-personal-data', '--out', file], world.env);
    expect(exported.code, exported.stderr).toBe(0);
    const text = readFileSync(file, 'utf8');
    expect(plaintextIn(text)).toEqual([]);
    expect(text).toContain(STAY_TEXT);
    const jwks = join(world.dataDir, 'rev-jwks.json');
    writeFileSync(jwks, await (await fetch(`${world.warden.url}/api/v1/signing_keys?include=retired`, { headers: { 'x-api-key': world.key } })).text());
    const verified = await runCli(['audit', 'verify', file, '--jwks', jwks], world.env);
    expect(verified.code, verified.stdout).toBe(0);
    expect(verified.stdout).toMatch(/^OK: /m);
  });

  it('is idempotent: the same user again answers the same request id and records nothing', async () => {
    const again = await request(gone);
    expect(again.status).toBe(202);
    expect(await again.json()).toEqual({ requestId: deletion.requestId });
    expect(loggedEvents(world.dataDir, 'GdprDeletionRequested')).toHaveLength(1);
    expect(await deletionOf(deletion.requestId)).toEqual(deletion);
  });

  it('accepts a user Warden never saw and completes with zero counts', async () => {
    const r = await request({ id: 'never-seen', typeId: 'user' });
    expect(r.status).toBe(202);
    const { requestId } = (await r.json()) as { requestId: string };
    const done = await waitFor(async () => {
      const d = await deletionOf(requestId);
      return d.state === 'COMPLETED' && d;
    }, 'the unknown user deletion to complete');
    expect(done.erased).toEqual({ dataKeys: 0, items: 0, reports: 0, appeals: 0, reviewJobsClosed: 0, consoleAccounts: 0 });
  });

  it('refuses bad requests with 400 and a pointer, recording nothing', async () => {
    const before = loggedEvents(world.dataDir, 'GdprDeletionRequested').length;
    const cases: Array<[unknown, string]> = [
      [{ id: 'u1' }, '/typeId'],
      [{ typeId: 'user' }, '/id'],
      [{ id: '', typeId: 'user' }, '/id'],
      [{ id: 'u1', typeId: 'post' }, '/typeId'],
      [{ id: 'u1', typeId: 'no-such-type' }, '/typeId'],
      [{ id: 'x'.repeat(5000), typeId: 'user' }, '/id'],
      [{ id: 'u1', typeId: 'user', consoleEmail: 'nobody-here@rev.example' }, '/consoleEmail'],
      [{ id: 'u1', typeId: 'user', consoleEmail: 42 }, '/consoleEmail'],
    ];
    for (const [body, pointer] of cases) {
      const r = await request(body);
      expect(r.status, JSON.stringify(body).slice(0, 80)).toBe(400);
      const errors = ((await r.json()) as ErrorBody).errors;
      expect(errors.map((e) => e.pointer)).toContain(pointer);
      expect(errors[0]!.type).toEqual(['/errors/invalid-user-input']);
    }
    expect(loggedEvents(world.dataDir, 'GdprDeletionRequested')).toHaveLength(before);
  });

  it("answers 404 for an unknown request id and for another organization's", async () => {
    expect((await world.api('GET', '/api/v1/gdpr/delete/00000000-0000-8000-8000-000000000000')).status).toBe(404);
    const otherKey = await createOrgWithKey(world.env, 'other');
    const r = await fetch(`${world.warden.url}/api/v1/gdpr/delete/${deletion.requestId}`, { headers: { 'x-api-key': otherKey } });
    expect(r.status).toBe(404);
    expect(((await r.json()) as ErrorBody).errors[0]!.type).toEqual(['/errors/not-found']);
  });

  // Last: it erases the email of the suite's own ADMIN. docs/gdpr.md, "What stays".
  it("keeps the organization's last active ADMIN enabled, and erases its email all the same", async () => {
    const admin = world.sessions['ADMIN']!;
    type Listed = { id: string; email: string | null; state: string; roles: string[] };
    const users = (await (await world.call(admin, 'GET', '/api/console/v1/users')).json()) as { users: Listed[] };
    const admins = users.users.filter((u) => u.state === 'active' && u.roles.includes('ADMIN'));
    expect(admins.map((u) => u.email)).toEqual(['admin@rev.example']);
    const r = await request({ id: 'the-admin-person', typeId: 'user', consoleEmail: 'admin@rev.example' });
    expect(r.status).toBe(202);
    const { requestId } = (await r.json()) as { requestId: string };
    const done = await waitFor(async () => {
      const d = await deletionOf(requestId);
      return d.state === 'COMPLETED' && d;
    }, "the admin's deletion to complete");
    expect(done.erased).toMatchObject({ consoleAccounts: 1 });
    // The admin's own session still answers: the account was not disabled.
    const account = await world.call(admin, 'GET', `/api/console/v1/users/${admins[0]!.id}`);
    expect(account.status).toBe(200);
    expect(await account.json()).toMatchObject({ state: 'active', email: null, roles: ['ADMIN'] });
  });
});
