import { generateKeyPairSync, sign } from 'node:crypto';
import { cpSync, existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkpointMessage, genesisLink, linkOf } from '../../libs/audit/src/chain/audit-chain.js';
import { okpThumbprint } from '../../libs/audit/src/export/audit-head.js';
import type { RecordedEvent } from '../../libs/kernel/src/index.js';
import { eventCount, loggedEvents } from '../support/config-files.js';
import { type ReviewWorld, REVIEW_PASSWORD, reviewOrgConfig, startReceiver, startReviewWorld } from '../support/review-fixture.js';
import { waitFor } from '../support/wait-for.js';
import { consoleLogin, freshDataDir, runCli, type RunningWarden, startWarden, testEnv } from '../support/warden-process.js';

/** A row of the embedded log's events table. */
interface StoredRow {
  id: string;
  stream: string;
  revision: number;
  position: number;
  type: string;
  data: string;
  metadata: string;
}

/**
 * Submits a post the fixture's rule sends to review, claims its job as the ADMIN and decides IGNORE:
 * a ReviewJobDecided in the log.
 */
async function submitClaimAndIgnore(world: ReviewWorld, itemId: string, authorId: string): Promise<void> {
  const post = { id: itemId, typeId: 'post', data: { text: `please review me ${itemId}`, author: { id: authorId, typeId: 'user' } } };
  expect((await world.api('POST', '/api/v1/items/async', { items: [post] })).status).toBe(202);
  const claimed = await waitFor(async () => {
    const r = await world.call(world.sessions['ADMIN']!, 'POST', '/api/console/v1/queues/default/claim');
    return r.status === 200 ? ((await r.json()) as { job: { jobId: string }; lock: { token: string } }) : undefined;
  }, 'a job to claim');
  const decided = await world.call(world.sessions['ADMIN']!, 'POST', `/api/console/v1/jobs/${claimed.job.jobId}/decision`, {
    lockToken: claimed.lock.token,
    type: 'IGNORE',
  });
  expect(decided.status).toBe(200);
}

/**
 * The console's audit export, read to its end. The answer's status comes before its streamed body:
 * a server stopped with the body unread is still sending it, and its graceful shutdown then waits
 * out the connection's keep-alive (about 70 s) before it exits.
 */
async function exportWholly(world: ReviewWorld): Promise<void> {
  const exported = await world.call(world.sessions['ADMIN']!, 'GET', '/api/console/v1/audit/export');
  expect(exported.status).toBe(200);
  expect(await exported.text()).toMatch(/"kind":"head"/);
}

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
    await submitClaimAndIgnore(world, 'rc-1', 'u-rc');
    await waitFor(() => loggedEvents(world.dataDir, 'ReviewJobDecided').length === 1 || undefined, 'the decision in the log');
    // An export brings the chain up to the head of the log: every event has its recorded link.
    await exportWholly(world);
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
    const out = await fetch(`${replayed.url}/api/console/v1/session`, {
      method: 'DELETE',
      headers: { cookie: session.cookie, 'x-csrf-token': session.csrfToken },
    });
    expect(out.status).toBe(204);
    expect((await me(session.cookie)).status).toBe(401);
    expect(eventCount(outDir)).toBe(before);
  });
});

/**
 * Issue 31, item 6, where signed checkpoints exist: an attacker with the data directory edits an
 * event and rewrites the recorded links in read-models.db to match, so that every event agrees with
 * its recorded link; only the checkpoint signed over a head past the event can tell (docs/audit.md,
 * "Replay"). Each scenario runs on its own copy of the source data directory.
 */
describe('replay with signed checkpoints: a checkpoint catches what rewritten recorded links hide', () => {
  let world: ReviewWorld;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let decidedAt: number;
  /** The first checkpoint of rev signed over a head at or past the decision. */
  let checkpoint: { at: number; seq: number; position: number };
  const ORG = 'rev';
  const open = <T>(file: string, run: (db: Database.Database) => T): T => {
    const db = new Database(file);
    try {
      return run(db);
    } finally {
      db.close();
    }
  };
  /** A copy of the stopped source's data directory, and the environment that makes it the source. */
  const copySource = () => {
    const dir = join(freshDataDir(), 'source');
    cpSync(world.dataDir, dir, { recursive: true });
    return { dir, env: { ...world.env, WARDEN_DATA_DIR: dir } };
  };
  const replay = (env: NodeJS.ProcessEnv, out: string) => runCli(['replay', '--until', String(checkpoint.at + 1000), '--out', out], env);
  /** rev's events in log order, as the chain reads them (as stored). */
  const orgEvents = (dir: string): RecordedEvent[] =>
    open(join(dir, 'warden.db'), (db) =>
      (db.prepare('SELECT position, stream, revision, id, type, data, metadata FROM events ORDER BY position').all() as StoredRow[])
        .map(
          (r) =>
            ({
              id: r.id,
              streamName: r.stream,
              revision: r.revision,
              position: r.position,
              type: r.type,
              data: JSON.parse(r.data),
              metadata: JSON.parse(r.metadata),
            }) as RecordedEvent,
        )
        .filter((e) => e.metadata.orgId === ORG),
    );
  /** The links recorded in read-models.db (the chain's own table), by log position. */
  const recordedLinks = (dir: string) =>
    new Map(
      open(join(dir, 'read-models.db'), (db) =>
        (db.prepare('SELECT doc FROM "rm/audit_chain_v2_links"').all() as Array<{ doc: string }>)
          .map((r) => JSON.parse(r.doc) as { orgId: string; position: number; link: string })
          .filter((d) => d.orgId === ORG)
          .map((d) => [d.position, d.link] as const),
      ),
    );
  /** The forger's re-chaining: rev's links recomputed over the edited log and written where the chain records them. */
  const rechainRecorded = (dir: string) => {
    let link = genesisLink(ORG);
    const links = orgEvents(dir).map((e) => ({ position: e.position, link: (link = linkOf(link, e)) }));
    open(join(dir, 'read-models.db'), (db) => {
      const update = db.prepare(`UPDATE "rm/audit_chain_v2_links" SET doc = json_set(doc, '$.link', ?) WHERE id = ?`);
      for (const l of links) update.run(l.link, `${ORG}:${l.position}`);
      db.prepare(`UPDATE "rm/audit_chain_v2_heads" SET doc = json_set(doc, '$.link', ?) WHERE id = ? AND json_extract(doc, '$.position') = ?`).run(
        link,
        ORG,
        links.at(-1)!.position,
      );
    });
    return new Map(links.map((l) => [l.position, l.link]));
  };
  const editDecision = (dir: string) =>
    open(join(dir, 'warden.db'), (db) => db.prepare("UPDATE events SET data = json_set(data, '$.type', 'CUSTOM_ACTION') WHERE position = ?").run(decidedAt));

  beforeAll(async () => {
    receiver = await startReceiver();
    world = await startReviewWorld(reviewOrgConfig(receiver.url), ['ADMIN'], { WARDEN_AUDIT_CHECKPOINT_SECONDS: '1' });
    await submitClaimAndIgnore(world, 'rs-1', 'u-rs');
    decidedAt = await waitFor(
      () =>
        open(
          join(world.dataDir, 'warden.db'),
          (db) => (db.prepare("SELECT position FROM events WHERE type = 'ReviewJobDecided'").get() as { position: number } | undefined)?.position,
        ),
      'the decision in the log',
    );
    checkpoint = await waitFor(
      () =>
        open(join(world.dataDir, 'warden.db'), (db) => {
          const row = db
            .prepare(
              "SELECT position, data FROM events WHERE type = 'AuditChainCheckpointed' AND json_extract(data, '$.position') >= ? ORDER BY position LIMIT 1",
            )
            .get(decidedAt) as { position: number; data: string } | undefined;
          if (!row) return undefined;
          const data = JSON.parse(row.data) as { seq: number; position: number };
          return { at: row.position, seq: data.seq, position: data.position };
        }),
      'a checkpoint signed over a head past the decision',
    );
    // An export brings the chain up to the head of the log, as far as appends were acknowledged:
    // the checkpoint read from the file above may still have been awaiting its WAL sync then
    // (docs/operations.md, "Durability of the embedded log"), so wait for its recorded link.
    await exportWholly(world);
    await waitFor(() => recordedLinks(world.dataDir).has(checkpoint.at), "the checkpoint's recorded link");
    await world.warden.stop();
  }, 180_000);

  afterAll(async () => {
    await receiver?.close();
  });

  it('replays the untouched log, its signed checkpoints verified', async () => {
    const { env } = copySource();
    const r = await replay(env, join(freshDataDir(), 'replayed'));
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const checkpoints = Number(/, (\d+) signed checkpoint\(s\) verified/.exec(r.stdout)?.[1]);
    expect(checkpoints).toBeGreaterThanOrEqual(1);
    // Every organization's (the deployment's own included), each checked.
    expect(checkpoints).toBe(loggedEvents(world.dataDir, 'AuditChainCheckpointed').length);
  });

  it('refuses an event edited before a checkpoint with the recorded links rewritten to match, naming the checkpoint', async () => {
    const { dir, env } = copySource();
    const before = recordedLinks(dir);
    editDecision(dir);
    const forged = rechainRecorded(dir);
    // The forgery is whole: the decision and every later event of rev agree with their (rewritten) recorded link.
    expect(forged.get(decidedAt)).not.toBe(before.get(decidedAt));
    expect(recordedLinks(dir).get(decidedAt)).toBe(forged.get(decidedAt));

    const out = join(freshDataDir(), 'replayed');
    const r = await replay(env, out);
    expect(r.code, r.stdout + r.stderr).toBe(1);
    expect(r.stdout).toContain(`log position ${checkpoint.at} (AuditChainCheckpointed of ${ORG}, audit_chain-${ORG} revision `);
    expect(r.stdout).toContain(
      `the checkpoint signed event ${checkpoint.seq} of ${ORG} at log position ${checkpoint.position}, and the log no longer gives that link`,
    );
    // Not caught by the recorded links: those were rewritten.
    expect(r.stdout).not.toContain('the event was changed in the log');
    expect(r.stdout).toMatch(/^REFUSED: /m);
    expect(existsSync(out) && readdirSync(out).length > 0).toBe(false);
  });

  it("refuses it when the checkpoint's signed link is rewritten too: the signature no longer verifies", async () => {
    const { dir, env } = copySource();
    editDecision(dir);
    // The forger also makes the checkpoint name the forged link at its position, then re-chains.
    const forgedBefore = rechainRecorded(dir);
    open(join(dir, 'warden.db'), (db) =>
      db.prepare("UPDATE events SET data = json_set(data, '$.link', ?) WHERE position = ?").run(forgedBefore.get(checkpoint.position)!, checkpoint.at),
    );
    rechainRecorded(dir);

    const r = await replay(env, join(freshDataDir(), 'replayed'));
    expect(r.code, r.stdout + r.stderr).toBe(1);
    expect(r.stdout).toContain(`log position ${checkpoint.at} (AuditChainCheckpointed of ${ORG}`);
    expect(r.stdout).toMatch(new RegExp(`the checkpoint's signature does not verify with ${ORG}'s key \\S+ \\(the checkpoint was changed\\)`));
    expect(r.stdout).not.toContain('the event was changed in the log');
    expect(r.stdout).not.toContain('the log no longer gives that link');
  });

  // Write access to both files, not the keyring (docs/audit.md, "Threat model"): the forger puts a
  // key of their own in the organization's SigningKeyCreated and signs every checkpoint with it.
  // The copy's key records are as forged as the rest, so the replay trusts only keys this keyring made.
  it('refuses it when the forger also puts a signing key of their own in the log and re-signs every checkpoint', async () => {
    const { dir, env } = copySource();
    editDecision(dir);
    const { privateKey, publicKey } = generateKeyPairSync('ed25519');
    const x = publicKey.export({ format: 'jwk' }).x!;
    const kid = okpThumbprint(x);
    let link = genesisLink(ORG);
    const links = new Map<number, { position: number; link: string }>();
    const forged: Array<{ position: number; data: unknown }> = [];
    orgEvents(dir).forEach((e, i) => {
      const data = e.data as Record<string, unknown>;
      if (e.type === 'SigningKeyCreated') Object.assign(data, { kid, x });
      if (e.type === 'AuditChainCheckpointed') {
        const head = { seq: data['seq'] as number, ...links.get(data['seq'] as number)! };
        Object.assign(data, head, { kid, signature: sign(null, checkpointMessage(ORG, head), privateKey).toString('base64url') });
      }
      link = linkOf(link, e);
      links.set(i + 1, { position: e.position, link });
      forged.push({ position: e.position, data });
    });
    open(join(dir, 'warden.db'), (db) => {
      const update = db.prepare('UPDATE events SET data = ? WHERE position = ?');
      for (const f of forged) update.run(JSON.stringify(f.data), f.position);
    });
    rechainRecorded(dir);

    const r = await replay(env, join(freshDataDir(), 'replayed'));
    expect(r.code, r.stdout + r.stderr).toBe(1);
    expect(r.stdout).toContain(`log position ${checkpoint.at} (AuditChainCheckpointed of ${ORG}`);
    expect(r.stdout).toContain(`the checkpoint is signed with key ${kid}, which is not among the signing keys this installation's keyring made for ${ORG}`);
    // Everything else fits: the forgery is whole but for the key.
    expect(r.stdout).not.toContain('the event was changed in the log');
    expect(r.stdout).not.toContain('the log no longer gives that link');
    expect(r.stdout).toMatch(/^REFUSED: /m);
  });
});
