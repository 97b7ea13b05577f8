import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'vitest';
import { removeSpamRule, SPAM_POLICY } from '../../bench/support/strikes-config.mjs';
import { writeConfig } from './config-files.js';
import { consoleLogin, consoleUserCommand, freshDataDir, runCliBatch, type RunningWarden, startWarden, testEnv } from './warden-process.js';

export const REVIEW_PASSWORD = 'correct horse battery staple';

/** A received callback: headers and the raw body as sent. */
export interface ReceivedCallback {
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

/** Handles a request as a platform takes a callback: records it, body as sent, and answers 200. */
export const recordCallback =
  (received: ReceivedCallback[]) =>
  (req: IncomingMessage, res: ServerResponse): void => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      received.push({ path: req.url ?? '', headers: req.headers, body });
      res.writeHead(200).end();
    });
  };

/** A real HTTP receiver on loopback that records every callback and answers 200. */
export async function startReceiver(): Promise<{ url: string; received: ReceivedCallback[]; close: () => Promise<void> }> {
  const received: ReceivedCallback[] = [];
  const server: Server = createServer(recordCallback(received));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, received, close: () => new Promise((r) => server.close(() => r())) };
}

/**
 * The callbacks received at `path` for the items `itemId` accepts, each delivery once: a retry
 * arrives again under its delivery id.
 */
export function deliveriesAt(received: readonly ReceivedCallback[], path: string, itemId: (id: string) => boolean): ReceivedCallback[] {
  const seen = new Map<string, ReceivedCallback>();
  for (const r of received) {
    if (r.path === path && itemId((JSON.parse(r.body) as { item: { id: string } }).item.id)) seen.set(String(r.headers['service-delivery-id']), r);
  }
  return [...seen.values()];
}

/**
 * Organization `rev`: posts (text, author → user), users; a customer-defined `remove` action with
 * a `durationDays` parameter whose callback goes to `callbackUrl`; a rule that sends posts
 * containing "review me" to review (ENQUEUE_TO_MRT), and one that sends "csam-test" to the
 * child-safety queue; queues `default` (FIFO), `spam` (PRIORITY) and `appeals`.
 */
export function reviewOrgConfig(callbackUrl: string, extra = ''): string {
  return `
org: { id: rev, name: Review Org }
itemTypes:
  - id: post
    name: Post
    kind: CONTENT
    fields:
      - { name: text, type: STRING, required: true }
      - { name: author, type: RELATED_ITEM, itemTypeIds: [user] }
      - { name: images, type: IMAGE, array: true }
      - { name: createdAt, type: DATETIME }
    roles: { creator: author, createdAt: createdAt }
  - { id: user, name: User, kind: USER, fields: [{ name: name, type: STRING }], roles: { displayName: name } }
policies:
${SPAM_POLICY}
  - { id: violence, name: Violence, penalty: HIGH, userStrikeCount: 3 }
actions:
  - id: remove
    name: Remove
    kind: CUSTOMER_DEFINED_ACTION
    itemTypeIds: [post]
    applyUserStrikes: true
    penalty: MEDIUM
    callback: { url: ${callbackUrl}/hooks/remove }
    body: { severity: high }
    parameters:
      - { name: durationDays, type: NUMBER, required: false }
rules:
  - id: to-review
    name: To review
    status: LIVE
    itemTypeIds: [post]
    actionIds: [enqueue-to-mrt]
    policyIds: [spam]
    conditionSet:
      conjunction: AND
      conditions:
        - { input: { field: text }, signal: { type: TEXT_CONTAINS, args: { terms: ["review me"] } }, comparator: EQUALS, value: true }
  - id: to-child-safety
    name: To child safety
    status: LIVE
    itemTypeIds: [post]
    actionIds: [enqueue-to-child-safety]
    conditionSet:
      conjunction: AND
      conditions:
        - { input: { field: text }, signal: { type: TEXT_CONTAINS, args: { terms: ["csam-test"] } }, comparator: EQUALS, value: true }
queues:
  - { id: default, name: Default, isDefault: true, lockTimeoutSeconds: 600 }
  - { id: spam, name: Spam reports, order: PRIORITY }
  - { id: appeals, name: Appeals, isAppealsDefault: true }
${extra}`;
}

/**
 * reviewOrgConfig with a LIVE rule that removes posts selling "cheap pills" (policy spam), so that
 * a reported post may already have been acted on before anyone reviews it (the job view shows it).
 */
export function reviewOrgConfigWithPillSpam(callbackUrl: string): string {
  return reviewOrgConfig(callbackUrl).replace(
    'rules:\n',
    `rules:
${removeSpamRule('pills', 'Pill spam', '["cheap pills"]')}
`,
  );
}

export type Session = { cookie: string; csrfToken: string };

export interface ReviewWorld {
  readonly dataDir: string;
  readonly env: NodeJS.ProcessEnv;
  readonly warden: RunningWarden;
  readonly key: string;
  /** Role → signed-in session of a user with only that role (`<role>@rev.example`). */
  readonly sessions: Record<string, Session>;
  readonly userIds: Record<string, string>;
  /** A console call with a session (null: none). */
  call(session: Session | null, method: string, path: string, body?: unknown): Promise<Response>;
  /** A customer API call with the organization's key. */
  api(method: string, path: string, body?: unknown): Promise<Response>;
}

/** Applies the review organization, starts the server, and signs in one user per listed role. */
export async function startReviewWorld(config: string, roles: readonly string[], env: Record<string, string> = {}): Promise<ReviewWorld> {
  const dataDir = freshDataDir();
  const processEnv = testEnv(dataDir, env);
  // The configuration, the key and each role's user in one CLI process: each step on its own was
  // a process start-up (mostly module loading), the suite's largest cost (docs/testing.md).
  const emailOf = (role: string) => `${role.toLowerCase()}@rev.example`;
  const [, keyMade, ...usersMade] = await runCliBatch(processEnv, [
    ['apply', writeConfig(config)],
    ['api-key', 'create', '--org', 'rev'],
    ...roles.map((role) => consoleUserCommand('rev', emailOf(role), REVIEW_PASSWORD, [role])),
  ]);
  const warden = await startWarden(processEnv);
  const sessions: Record<string, Session> = {};
  const userIds: Record<string, string> = {};
  const key = keyMade!.at(-1)!;
  try {
    for (const [i, role] of roles.entries()) {
      userIds[role] = usersMade[i]!.at(-1)!;
      sessions[role] = await consoleLogin(warden.url, emailOf(role), REVIEW_PASSWORD);
    }
  } catch (error) {
    // The caller never gets the world to stop: stop its server here.
    await warden.stop();
    throw error;
  }
  return {
    dataDir,
    env: processEnv,
    warden,
    key,
    sessions,
    userIds,
    call: (session, method, path, body) =>
      fetch(warden.url + path, {
        method,
        headers: {
          ...(session ? { cookie: session.cookie, 'x-csrf-token': session.csrfToken } : {}),
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      }),
    api: (method, path, body) =>
      fetch(warden.url + path, {
        method,
        headers: { 'x-api-key': key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      }),
  };
}

/**
 * Invites `count` users with `role` through the admin's session, accepts each invitation with a
 * password and signs them in (a few at a time: each costs two password hashes). Faster than the
 * CLI for the dozens of moderators a concurrency test needs.
 */
export async function signInUsers(
  world: ReviewWorld,
  admin: Session,
  role: string,
  count: number,
  prefix = 'mod',
): Promise<Array<{ userId: string; session: Session }>> {
  const one = async (i: number) => {
    const email = `${prefix}-${i}@rev.example`;
    const invited = await world.call(admin, 'POST', '/api/console/v1/users/invitations', { email, roles: [role] });
    if (invited.status !== 201 && invited.status !== 200) throw new Error(`invitation of ${email}: ${invited.status} ${await invited.text()}`);
    const body = (await invited.json()) as { user: { id: string }; invitationUrl: string };
    const token = body.invitationUrl.split('#')[1]!;
    const accepted = await world.call(null, 'POST', '/api/console/v1/invitations/accept', { token, password: REVIEW_PASSWORD });
    if (accepted.status !== 200) throw new Error(`accepting the invitation of ${email}: ${accepted.status} ${await accepted.text()}`);
    return { userId: body.user.id, session: await consoleLogin(world.warden.url, email, REVIEW_PASSWORD) };
  };
  const users: Array<{ userId: string; session: Session }> = [];
  for (let i = 0; i < count; i += 4) {
    users.push(...(await Promise.all(Array.from({ length: Math.min(4, count - i) }, (_, k) => one(i + k)))));
  }
  return users;
}

/** Submits `count` posts that the fixture's rule sends to review ("review me"), in requests of `batch`. */
export async function submitPostsForReview(world: ReviewWorld, count: number, prefix = 'p', batch = 500): Promise<void> {
  for (let i = 0; i < count; i += batch) {
    const items = Array.from({ length: Math.min(batch, count - i) }, (_, k) => ({
      id: `${prefix}${i + k}`,
      typeId: 'post',
      data: { text: `please review me ${i + k}`, author: { id: `u${(i + k) % 97}`, typeId: 'user' } },
    }));
    const response = await world.api('POST', '/api/v1/items/async', { items });
    if (response.status !== 202) throw new Error(`submitting posts: ${response.status} ${await response.text()}`);
  }
}

/**
 * A rule that removes posts saying "auto-remove" under the violence policy, capped when
 * `maxDailyActions` is given, as rules YAML to place before the fixture's queues (its rules list
 * is the last one before them): `withAutoRemoveRule` does.
 */
export function autoRemoveRule(maxDailyActions?: number): string {
  return `
  - id: auto-remove
    name: Auto remove
    status: LIVE
    itemTypeIds: [post]
    actionIds: [remove]
    policyIds: [violence]
${maxDailyActions === undefined ? '' : `    maxDailyActions: ${maxDailyActions}\n`}    conditionSet:
      conjunction: AND
      conditions:
        - { input: { field: text }, signal: { type: TEXT_CONTAINS, args: { terms: ["auto-remove"] } }, comparator: EQUALS, value: true }
`;
}

/** The organization's config with the auto-remove rule added to its rules. */
export const withAutoRemoveRule = (config: string, maxDailyActions?: number): string =>
  config.replace('queues:\n', `${autoRemoveRule(maxDailyActions)}queues:\n`);

/** A post by its own author, the user `author-of-<id>` (what an appeal of it names). */
export const authoredPost = (id: string, text: string) => ({ id, typeId: 'post', data: { text, author: { id: `author-of-${id}`, typeId: 'user' } } });

/** A claimed review job, as the claim answers it. */
export interface ClaimedJob {
  job: { jobId: string; item: { id: string }; appeal: { appealId: string } | null };
  lock: { token: string };
}

/** The next job of the queue, claimed by the session; undefined while there is none (for waitFor). */
export async function claimNext(world: ReviewWorld, session: Session, queue: string): Promise<ClaimedJob | undefined> {
  const r = await world.call(session, 'POST', `/api/console/v1/queues/${queue}/claim`);
  return r.status === 200 ? ((await r.json()) as ClaimedJob) : undefined;
}

/** Decides a claimed job under its lock; the decision must be taken. */
export async function decideClaimed(world: ReviewWorld, session: Session, claimed: ClaimedJob, body: Record<string, unknown>): Promise<void> {
  const r = await world.call(session, 'POST', `/api/console/v1/jobs/${claimed.job.jobId}/decision`, { lockToken: claimed.lock.token, ...body });
  expect(r.status, await r.clone().text()).toBe(200);
}
