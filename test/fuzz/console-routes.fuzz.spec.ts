import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consoleLogin, consoleUserCommand, orgWithKeyCommand, runCliBatch } from '../support/warden-process.js';
import { checkProperty, exchangeFailure, preview } from './fuzz-report.js';
import { fuzzSettings } from './fuzz-settings.js';
import { sendAll, startFuzzTarget, type FuzzTarget } from './fuzz-target.js';
import { body, contentType, type FuzzCase, type FuzzOptions, pathSegment } from './hostile-arbitraries.js';
import { RecordedLog } from './recorded-log.js';
import { type Exchange, RequestSchemas, responseProblems } from './response-checks.js';
import { type ConsoleOperation, consoleOperations, type Domain, readOpenApi, type SchemaObject } from './schema-arbitraries.js';

const SPEC = 'test/fuzz/console-routes.fuzz.spec.ts';
const settings = fuzzSettings();
const RUN = randomBytes(4).toString('hex');
const TOKEN = /FZ[0-9a-f]{8}C\d+Z/;
const PASSWORD = 'fuzz console password 1';
const ORG = 'fuzz';
const OTHER_ORG = 'fuzz-other';
/** The body of an operation that takes none: `{}`, broken by the same mutations as any other. */
const NO_BODY: SchemaObject = { type: 'object', properties: {} };
/**
 * What a refused request may leave: a refused sign-in is recorded on purpose (the access audit,
 * docs/console-access.md), and it is the only refusal that is.
 */
const RECORDED_WHEN_REFUSED = new Set(['ConsoleLoginFailed']);

interface Session {
  readonly cookie: string;
  readonly csrfToken: string;
}
const sessionHeaders = (s: Session) => ({ cookie: s.cookie, 'x-csrf-token': s.csrfToken });

/**
 * Seeded fuzzing of every console operation of docs/openapi.json with a JSON body or a path
 * parameter, as a signed-in ADMIN (cookie and CSRF header): schema-valid and hostile bodies
 * (hostile-arbitraries.ts), other content types, trailing slashes, and path parameters that are
 * the organization's ids, another organization's, or hostile text. Every answer must be a
 * success or an error body (a 400 with a pointer; docs/api.md, "Errors"), never a 5xx; a refused request records
 * nothing but a refused sign-in's audit event; and afterwards the server is ready, the admin's
 * session works with its roles, and the organizations' API keys still authenticate.
 *
 * The admin is never a path parameter (its own id is not among the ids the generator knows, and
 * every request is checked for it), so the fuzz can neither disable nor demote the session it
 * runs in; nor is the API key the suite checks at the end.
 */
describe('fuzzing the console operations', () => {
  const doc = readOpenApi();
  const ops = consoleOperations(doc);
  const opKey = (op: ConsoleOperation) => `${op.method} ${op.path}`;
  const schemas = new RequestSchemas(
    doc,
    ops.map((op) => ({ path: opKey(op), schema: op.schema })),
  );
  const rejected = new Map<string, string>();
  const statuses = new Map<string, number>();
  let target: FuzzTarget;
  let log: RecordedLog;
  let domain: Domain;
  let admin: Session;
  let otherAdmin: Session;
  /** Ids the fuzz must never touch: the signed-in admin and the key checked at the end. */
  let protectedIds: string[];
  const known = { users: [] as string[], keys: [] as string[] };
  let counter = 0;
  let sent = 0;

  const call = async (session: Session | null, method: string, path: string, payload?: unknown) => {
    const response = await fetch(target.warden.url + path, {
      method,
      headers: { ...(session ? sessionHeaders(session) : {}), ...(payload === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(payload === undefined ? {} : { body: JSON.stringify(payload) }),
    });
    const text = await response.text();
    return { status: response.status, text, json: () => JSON.parse(text) as Record<string, unknown> };
  };

  beforeAll(async () => {
    target = await startFuzzTarget(settings.concurrency);
    domain = { doc, itemTypes: target.itemTypes };
    log = new RecordedLog(target.dataDir, TOKEN);
    const { env, warden } = target;
    // One CLI process for the set-up (test/support/warden-process.ts, runCliBatch).
    const [adminMade, ...othersMade] = await runCliBatch(env, [
      consoleUserCommand(ORG, 'admin@fuzz.example', PASSWORD, ['ADMIN']),
      consoleUserCommand(ORG, 'moderator@fuzz.example', PASSWORD, ['MODERATOR']),
      consoleUserCommand(ORG, 'second-admin@fuzz.example', PASSWORD, ['ADMIN', 'ANALYST']),
      orgWithKeyCommand(OTHER_ORG),
      consoleUserCommand(OTHER_ORG, 'admin@other.example', PASSWORD, ['ADMIN']),
    ]);
    const adminId = adminMade!.at(-1)!;
    known.users.push(othersMade[0]!.at(-1)!, othersMade[1]!.at(-1)!, othersMade[3]!.at(-1)!);
    admin = await consoleLogin(warden.url, 'admin@fuzz.example', PASSWORD);
    otherAdmin = await consoleLogin(warden.url, 'admin@other.example', PASSWORD);
    const keyIds = async (s: Session) => ((await call(s, 'GET', '/api/console/v1/api-keys')).json()['keys'] as Array<{ id: string }>).map((k) => k.id);
    const [checkedKey] = await keyIds(admin);
    const spare = await call(admin, 'POST', '/api/console/v1/api-keys', { name: 'spare' });
    expect(spare.status, spare.text).toBe(201);
    known.keys.push(spare.json()['id'] as string, ...(await keyIds(otherAdmin)));
    protectedIds = [adminId, checkedKey!];
  }, 120_000);
  afterAll(async () => {
    log?.close();
    await target?.stop();
  });

  const families: FuzzOptions = { deepNesting: true, loneSurrogateIds: true, duplicateIds: true, prototypeKeys: true, invalidUtf8: true };

  /** A request to any of the operations: its path parameters filled in, with or without a trailing slash. */
  const consoleCase = (): fc.Arbitrary<FuzzCase> => {
    const ids = [...known.users, ...known.keys];
    return fc.oneof(
      ...ops.map((op) =>
        fc
          .record({
            params: fc.tuple(...op.pathParams.map(() => pathSegment(ids))),
            slash: fc.boolean(),
            contentType,
            body: op.schema
              ? body(domain, { path: op.path, operationId: op.operationId, schema: op.schema }, families)
              : fc.oneof(
                  { weight: 3, arbitrary: fc.constant({ kind: 'none' as const }) },
                  body(domain, { path: op.path, operationId: op.operationId, schema: NO_BODY }, families),
                ),
          })
          .map(({ params, slash, contentType: type, body: b }) => {
            const filled = op.pathParams.reduce((path, name, i) => path.replace(`{${name}}`, params[i]!), op.path);
            return {
              method: op.method,
              path: slash ? filled.replace(/\/?$/, '/') : filled,
              operation: opKey(op),
              // An operation without a body is mostly sent none, and then no content type.
              contentType: b.kind === 'none' && !op.schema ? null : type,
              body: b,
            };
          }),
      ),
    );
  };

  const describeExchange = (c: FuzzCase, x: Exchange | undefined) =>
    `${c.method} ${c.path.slice(0, 300)} (${c.contentType ?? 'no content type'}) body ${preview(x?.body ?? null)} -> ${x ? `${x.status} ${x.responseText.slice(0, 400)}` : 'no response'}`;

  async function exchange(cases: readonly FuzzCase[]): Promise<void> {
    for (const c of cases) {
      const hit = protectedIds.find((id) => c.path.includes(id));
      if (hit) throw new Error(`the generator produced a protected id (${hit}) in ${c.path}`);
    }
    sent += cases.length;
    const exchanges = await sendAll(target, cases, () => `FZ${RUN}C${counter++}Z`, sessionHeaders(admin));
    log.refresh();
    const failures = exchanges.flatMap((x, i) => {
      const c = cases[i]!;
      if ('error' in x) return [`${describeExchange(c, undefined)}\n  - the request failed: ${x.error}`];
      const status = `${c.operation} ${x.status}`;
      statuses.set(status, (statuses.get(status) ?? 0) + 1);
      const problems = responseProblems(x, schemas);
      if (x.status >= 400) {
        rejected.set(x.token, describeExchange(c, x));
        const recorded = log.typesOf(x.token).filter((t) => !RECORDED_WHEN_REFUSED.has(t));
        if (recorded.length > 0)
          problems.push(`rejected with ${x.status} but recorded ${recorded.join(', ')} in ${log.streamsOf(x.token).slice(0, 5).join(', ')}`);
      }
      return problems.length === 0 ? [] : [exchangeFailure(describeExchange(c, x), problems, target.serverProblems(), x.token)];
    });
    if (failures.length > 0) throw new Error(failures.join('\n'));
  }

  it('finds the console operations with a body or a path parameter in the OpenAPI document', () => {
    expect(ops.map(opKey)).toEqual(
      expect.arrayContaining([
        'POST /api/console/v1/session',
        'POST /api/console/v1/api-keys/{keyId}/rotate',
        'PUT /api/console/v1/users/{userId}/roles',
        'POST /api/console/v1/users/invitations',
        'PUT /api/console/v1/sso',
      ]),
    );
    // Signing out takes neither, and is left out: it would end the session the fuzz runs in.
    expect(ops.map(opKey)).not.toContain('DELETE /api/console/v1/session');
  });

  it(
    `answers ${settings.consoleRequests} hostile console requests (seed ${settings.seed}) with a success or a section 7 error, and records nothing it refuses`,
    async () => {
      const started = Date.now();
      const cases = fc.array(consoleCase(), { minLength: settings.concurrency, maxLength: settings.concurrency });
      await checkProperty(
        fc.asyncProperty(cases, (batch) => exchange(batch)),
        { seed: settings.seed, numRuns: Math.ceil(settings.consoleRequests / settings.concurrency), ...(settings.path ? { path: settings.path } : {}) },
        settings,
        SPEC,
      );
      const histogram = [...statuses].sort(([a], [b]) => a.localeCompare(b)).map(([s, n]) => `${s}: ${n}`);
      console.info(`console fuzz: ${sent} requests in ${Date.now() - started} ms (seed ${settings.seed})\n  ${histogram.join('\n  ')}`);
    },
    Math.max(120_000, settings.consoleRequests * 200),
  );

  it('is ready afterwards, the admin session works with its roles, both organizations keys authenticate, and no refusal left anything', async () => {
    expect(target.warden.process.exitCode).toBeNull();
    const ready = await target.get('/health/ready');
    expect(ready.status, ready.text).toBe(200);
    const me = await call(admin, 'GET', '/api/console/v1/me');
    expect(me.status, me.text).toBe(200);
    expect((me.json()['user'] as { roles: string[] }).roles).toContain('ADMIN');
    // A mutation with the session's CSRF token: the session is whole, not only readable.
    const created = await call(admin, 'POST', '/api/console/v1/api-keys', { name: 'after the fuzz' });
    expect(created.status, created.text).toBe(201);
    const keyWorks = await target.get('/api/v1/item_types/');
    expect(keyWorks.status, keyWorks.text).toBe(200);
    const other = await call(otherAdmin, 'GET', '/api/console/v1/me');
    expect(other.status, other.text).toBe(200);

    log.refresh();
    const leftovers = log
      .tokens()
      .filter((t) => rejected.has(t) && log.typesOf(t).some((type) => !RECORDED_WHEN_REFUSED.has(type)))
      .map((t) => `${rejected.get(t)}\n  - left ${log.typesOf(t).join(', ')} in ${log.streamsOf(t).slice(0, 5).join(', ')}`);
    expect(leftovers, leftovers.join('\n')).toEqual([]);
    // The log check can fail: the requests the server accepted are found in the log by their token.
    expect(log.tokens().filter((t) => !rejected.has(t)).length).toBeGreaterThan(0);
    const errors = target
      .serverProblems()
      .filter((line) => /"level":[56]0/.test(line))
      .map((line) => line.slice(0, 1000));
    expect(errors, errors.join('\n')).toEqual([]);
    console.info(`console fuzz: ${sent} requests in all`);
  });
});
