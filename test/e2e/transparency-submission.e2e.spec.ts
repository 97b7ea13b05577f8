import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule, { type FormatsPlugin } from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loggedEvents, writeConfig } from '../support/config-files.js';
import { type ReviewWorld, startReceiver, startReviewWorld } from '../support/review-fixture.js';
import { transparencyConfig } from '../support/transparency-fixture.js';
import { waitFor } from '../support/wait-for.js';
import { runCli, type RunningWarden, startWarden } from '../support/warden-process.js';

const ROOT = join(import.meta.dirname, '../..');
const schema = JSON.parse(readFileSync(join(ROOT, 'libs/transparency/schema/statement-of-reasons.schema.json'), 'utf8')) as object;
const addFormats = ((addFormatsModule as unknown as { default?: FormatsPlugin }).default ?? addFormatsModule) as FormatsPlugin;
const ajv = new Ajv2020({ allErrors: true, strict: false });
addFormats(ajv);
const validate = ajv.compile(schema);

const TOKEN = 'X|ybqkCFX7ZkIFoLxtI0VAk1JBzMR9jVk4c4EU';

interface Received {
  authorization: string | undefined;
  puids: string[];
  bodies: Array<Record<string, unknown>>;
  status: number;
}

/**
 * The Transparency Database's multiple endpoint on loopback: answers 503 (Retry-After as set) while
 * `failing` says so, else 201 with the statements as created (its API documentation, "Creating
 * Multiple Statements").
 */
async function startDatabase(): Promise<{ url: string; received: Received[]; failing: { next: number; retryAfter: string }; close: () => Promise<void> }> {
  const received: Received[] = [];
  const failing = { next: 0, retryAfter: '0' };
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      const statements = (JSON.parse(body) as { statements: Array<Record<string, unknown>> }).statements;
      const fail = failing.next > 0;
      if (fail) failing.next--;
      const status = req.url !== '/api/v1/statements' ? 404 : fail ? 503 : 201;
      received.push({ authorization: req.headers.authorization, puids: statements.map((s) => String(s['puid'])), bodies: statements, status });
      if (status === 503) {
        res.writeHead(503, { 'retry-after': failing.retryAfter, 'content-type': 'application/json' }).end('{"message":"Service Unavailable"}');
        return;
      }
      res
        .writeHead(status, { 'content-type': 'application/json' })
        .end(JSON.stringify({ statements: statements.map((s) => ({ ...s, uuid: `u-${String(s['puid'])}` })) }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, received, failing, close: () => new Promise((r) => server.close(() => r())) };
}

interface Submission {
  state: string;
  batchId: string | null;
  attempts: number;
  lastError: string | null;
  submittedAt: string | null;
}
interface View {
  puid: string;
  statement: Record<string, unknown> | null;
  submission: Submission;
}

describe('submitting statements of reasons to the Transparency Database', () => {
  let world: ReviewWorld;
  let callbacks: Awaited<ReturnType<typeof startReceiver>>;
  let database: Awaited<ReturnType<typeof startDatabase>>;
  let restarted: RunningWarden | undefined;
  const today = new Date().toISOString().slice(0, 10);
  const pills = (from: number, count: number) =>
    Array.from({ length: count }, (_, i) => ({
      id: `pill-${from + i}`,
      typeId: 'post',
      data: { text: 'cheap pills here', author: { id: `seller-${from + i}`, typeId: 'user' } },
    }));
  const statements = async (): Promise<View[]> => {
    const r = await world.call(world.sessions['ANALYST']!, 'GET', `/api/console/v1/transparency/statements?from=${today}&to=${today}&limit=1000`);
    expect(r.status).toBe(200);
    return ((await r.json()) as { statements: View[] }).statements;
  };

  beforeAll(async () => {
    callbacks = await startReceiver();
    database = await startDatabase();
    const submission = `\n  submission: { url: "${database.url}/api/v1/statements", token: "\${DSA_TOKEN}" }`;
    world = await startReviewWorld(transparencyConfig(callbacks.url, submission), ['ANALYST'], {
      DSA_TOKEN: TOKEN,
      WARDEN_CALLBACK_RETRY_SCHEDULE: '300ms,300ms,300ms',
    });
  }, 120_000);

  afterAll(async () => {
    await restarted?.stop();
    await world?.warden.stop();
    await callbacks?.close();
    await database?.close();
  });

  it('sends 150 statements in batches of at most 100 with the token, retries the batch answered 503, and shows each statement submitted', async () => {
    database.failing.next = 1;
    expect((await world.api('POST', '/api/v1/items/async', { items: pills(0, 150) })).status).toBe(202);
    const views = await waitFor(
      async () => {
        const all = await statements();
        return all.length === 150 && all.every((v) => v.submission.state === 'submitted') ? all : undefined;
      },
      { what: 'the 150 statements submitted', timeoutMs: 90_000, intervalMs: 500 },
    );

    expect(database.received.length).toBeGreaterThanOrEqual(3);
    expect(database.received.every((r) => r.authorization === `Bearer ${TOKEN}`)).toBe(true);
    expect(Math.max(...database.received.map((r) => r.puids.length))).toBeLessThanOrEqual(100);
    for (const body of database.received.flatMap((r) => r.bodies)) expect(validate(body), JSON.stringify(validate.errors)).toBe(true);
    // The batch answered 503 is sent again, whole; every statement is created exactly once.
    const [unavailable, ...rest] = database.received;
    expect(unavailable!.status).toBe(503);
    const created = rest.filter((r) => r.status === 201).flatMap((r) => r.puids);
    expect(new Set(created).size).toBe(created.length);
    expect(new Set(created)).toEqual(new Set(views.map((v) => v.puid)));
    expect(created).toEqual(expect.arrayContaining(unavailable!.puids));
    // Per statement: the retried batch's took two attempts, the others one.
    const retried = new Set(unavailable!.puids);
    for (const v of views) {
      expect(v.submission).toMatchObject({ state: 'submitted', attempts: retried.has(v.puid) ? 2 : 1 });
      expect(v.submission.submittedAt).not.toBeNull();
    }
    expect(views.find((v) => retried.has(v.puid))!.submission.lastError).toBe('The Database answered 503: Service Unavailable');
    // The log holds the token sealed, never in plaintext.
    expect(JSON.stringify(loggedEvents(world.dataDir, 'TransparencySettingsChanged'))).not.toContain('ybqkCFX7');

    const cli = await runCli(['transparency', 'submissions', '--org', 'rev', '--from', today, '--to', today, '--json'], world.env);
    expect(cli.code, cli.stderr).toBe(0);
    const lines = cli.stdout
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as { puid: string; state: string; attempts: number });
    expect(lines).toHaveLength(150);
    expect(lines.every((l) => l.state === 'submitted')).toBe(true);
    const table = await runCli(['transparency', 'submissions', '--org', 'rev', '--from', today, '--to', today], world.env);
    expect(table.stdout.split('\n')[0]).toMatch(/^PUID\s+DECIDED\s+ACTION\s+STATE\s+ATTEMPTS/);
  }, 120_000);

  it('resumes a batch due for a retry after a restart: the log holds what is due', async () => {
    database.failing.next = 1_000;
    database.failing.retryAfter = '5';
    const failuresBefore = loggedEvents(world.dataDir, 'StatementBatchAttemptFailed').length;
    expect((await world.api('POST', '/api/v1/items/async', { items: pills(1000, 1) })).status).toBe(202);
    await waitFor(() => loggedEvents(world.dataDir, 'StatementBatchAttemptFailed').length > failuresBefore, {
      what: 'the new batch answered 503',
      intervalMs: 200,
    });
    const pending = await statements();
    const mine = pending.find((v) => v.submission.state !== 'submitted')!;
    expect(mine.submission).toMatchObject({ state: 'retrying', attempts: 1 });
    await world.warden.stop();
    database.failing.next = 0;
    restarted = await startWarden(world.env);
    await waitFor(() => loggedEvents(world.dataDir, 'StatementBatchSubmitted').some((e) => e.data['batchId'] === mine.submission.batchId) || undefined, {
      what: 'the batch submitted after the restart',
      timeoutMs: 60_000,
      intervalMs: 200,
    });
    expect(database.received.filter((r) => r.status === 201).flatMap((r) => r.puids)).toContain(mine.puid);
    const cli = await runCli(['transparency', 'submissions', '--org', 'rev', '--from', today, '--to', today, '--json'], world.env);
    const line = cli.stdout
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as { puid: string; state: string })
      .find((l) => l.puid === mine.puid);
    expect(line?.state).toBe('submitted');
  }, 120_000);

  it('sends through the outbound guard: an endpoint on a link-local (metadata) address is refused, and the statement says so', async () => {
    const metadata = `\n  submission: { url: "http://169.254.169.254/api/v1/statements", token: "\${DSA_TOKEN}" }`;
    const applied = await runCli(['apply', writeConfig(transparencyConfig(callbacks.url, metadata))], world.env);
    expect(applied.code, applied.stderr).toBe(0);
    const received = database.received.length;
    expect(
      (
        await fetch(`${restarted!.url}/api/v1/items/async`, {
          method: 'POST',
          headers: { 'x-api-key': world.key, 'content-type': 'application/json' },
          body: JSON.stringify({ items: pills(2000, 1) }),
        })
      ).status,
    ).toBe(202);
    const refused = await waitFor(
      () => loggedEvents(world.dataDir, 'StatementBatchAttemptFailed').find((e) => String(e.data['error']).includes('169.254.169.254')),
      { what: 'an attempt refused by the outbound guard', intervalMs: 200 },
    );
    expect(refused.data).toMatchObject({ status: null, error: 'Outbound request to 169.254.169.254 refused: address not allowed' });
    const cli = await runCli(['transparency', 'submissions', '--org', 'rev', '--from', today, '--to', today, '--json'], world.env);
    const states = cli.stdout
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as { state: string; lastError: string | null });
    expect(states.filter((l) => l.lastError?.includes('Outbound request to 169.254.169.254 refused: address not allowed')).map((l) => l.state)).toEqual([
      expect.stringMatching(/^(retrying|abandoned)$/),
    ]);
    expect(database.received.length).toBe(received);
  }, 120_000);
});
