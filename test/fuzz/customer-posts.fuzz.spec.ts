import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkProperty, exchangeFailure, preview } from './fuzz-report.js';
import { fuzzSettings } from './fuzz-settings.js';
import { sendAll, startFuzzTarget, type FuzzTarget } from './fuzz-target.js';
import { defectCase, type FuzzCase, fuzzCase, type FuzzOptions, validCase } from './hostile-arbitraries.js';
import { RecordedLog } from './recorded-log.js';
import { type Exchange, RequestSchemas, responseProblems } from './response-checks.js';
import { type Domain, postOperations, readOpenApi } from './schema-arbitraries.js';

const settings = fuzzSettings();
/** Request tokens: the X-Request-Id of a request and the prefix of every item id in it. */
const RUN = randomBytes(4).toString('hex');
/** Batches of the check that valid bodies are accepted. */
const VALID_RUNS = 25;
/** Requests a known defect's test may send before it must have met the defect. */
const DEFECT_RUNS = 40;
const TOKEN = /FZ[0-9a-f]{8}N\d+Z/;
/**
 * Operations whose valid bodies depend on more than the schema and the item types say (a report
 * names a USER reporter type, an existing policy, a datetime, and thread items it also sends; an
 * appeal a USER appellant type, a datetime and existing policies; an action execution an existing
 * action assigned to the item type, existing policies and item types; a GDPR deletion a USER item
 * type): fuzzed like every operation, but left out of the check that schema-valid bodies are accepted.
 */
const CROSS_CHECKED = new Set(['/api/v1/report', '/api/v1/report/appeal', '/api/v1/actions', '/api/v1/gdpr/delete']);

/**
 * Seeded fuzzing of every POST operation of docs/openapi.json against the built server: valid
 * bodies from the request schemas and the organization's item types, broken in every way the
 * generators know (hostile-arbitraries.ts). Every response must be a success or an error body
 * (docs/api.md, "Errors") with the right status, type and pointer, never a 5xx; a rejected request must leave
 * nothing in the log; an accepted one must have met its schema and recorded each item once.
 * Replay a failure with the FUZZ_SEED and FUZZ_PATH it prints (docs/testing.md).
 */
describe('fuzzing the customer POST operations', () => {
  const doc = readOpenApi();
  const ops = postOperations(doc);
  const schemaValidOps = ops.filter((o) => !CROSS_CHECKED.has(o.path.replace(/\/$/, '')));
  const schemas = new RequestSchemas(doc, ops);
  /** Tokens of the requests the main property saw rejected, with what was sent. */
  const rejected = new Map<string, string>();
  /** The same for the known defects' tests: their 500s are expected, and logged as errors. */
  const defectRejected = new Map<string, string>();
  const statuses = new Map<number, number>();
  let target: FuzzTarget;
  let log: RecordedLog;
  let domain: Domain;
  let counter = 0;
  let sent = 0;

  beforeAll(async () => {
    target = await startFuzzTarget(settings.concurrency);
    domain = { doc, itemTypes: target.itemTypes };
    log = new RecordedLog(target.dataDir, TOKEN);
  });
  afterAll(async () => {
    log?.close();
    await target?.stop();
  });

  const describeExchange = (c: FuzzCase, x: Exchange | undefined) =>
    `POST ${c.path} (${c.contentType ?? 'no content type'}) body ${preview(x?.body ?? null)} -> ${x ? `${x.status} ${x.responseText.slice(0, 400)}` : 'no response'}`;

  /** Sends the cases at once, then checks every answer and what the log holds of each. */
  async function exchange(cases: readonly FuzzCase[], track?: Map<string, string>, mustAccept = false): Promise<void> {
    sent += cases.length;
    const exchanges = await sendAll(target, cases, () => `FZ${RUN}N${counter++}Z`);
    log.refresh();
    const failures = exchanges.flatMap((x, i) => {
      const c = cases[i]!;
      if ('error' in x) return [`${describeExchange(c, undefined)}\n  - the request failed: ${x.error}`];
      statuses.set(x.status, (statuses.get(x.status) ?? 0) + 1);
      const problems = responseProblems(x, schemas);
      if (mustAccept && x.status >= 300) problems.push('rejected a body that is valid by the schema and the item types');
      if (x.status >= 400) {
        track?.set(x.token, describeExchange(c, x));
        const streams = log.streamsOf(x.token);
        if (streams.length > 0) problems.push(`rejected with ${x.status} but recorded events in ${streams.slice(0, 5).join(', ')}`);
      } else {
        for (const [stream, n] of log.repeatedVersions(x.token)) problems.push(`recorded ${n} versions of one item in one request (${stream})`);
      }
      return problems.length === 0 ? [] : [exchangeFailure(describeExchange(c, x), problems, target.serverProblems(), x.token)];
    });
    if (failures.length > 0) throw new Error(failures.join('\n'));
  }

  const check = (property: fc.IAsyncPropertyWithHooks<[readonly FuzzCase[]]>, parameters: fc.Parameters<[readonly FuzzCase[]]>) =>
    checkProperty(property, parameters, settings, 'test/fuzz/customer-posts.fuzz.spec.ts');

  it('finds the POST operations in the OpenAPI document', () => {
    expect(ops.map((o) => o.path.replace(/\/$/, ''))).toEqual(expect.arrayContaining(['/api/v1/items/async', '/api/v1/content', '/api/v1/report']));
  });

  const off = new Set(settings.knownDefects.map((d) => d.family));
  const families: FuzzOptions = {
    deepNesting: !off.has('deepNesting'),
    loneSurrogateIds: !off.has('loneSurrogateIds'),
    duplicateIds: !off.has('duplicateIds'),
    prototypeKeys: !off.has('prototypeKeys'),
    invalidUtf8: !off.has('invalidUtf8'),
  };
  const runs = Math.ceil(settings.requests / settings.concurrency);

  it('accepts bodies that are valid by the request schemas and the item types', async () => {
    const cases = fc.array(validCase(domain, schemaValidOps), { minLength: settings.concurrency, maxLength: settings.concurrency });
    await check(
      fc.asyncProperty(cases, (batch) => exchange(batch, undefined, true)),
      { seed: settings.seed, numRuns: VALID_RUNS },
    );
  });

  it(
    `answers ${settings.requests} hostile requests (seed ${settings.seed}) with a success or a section 7 error, and records nothing it rejects`,
    async () => {
      const started = Date.now();
      const before = sent;
      statuses.clear();
      const cases = fc.array(fuzzCase(domain, ops, families), { minLength: settings.concurrency, maxLength: settings.concurrency });
      await check(
        fc.asyncProperty(cases, (batch) => exchange(batch, rejected)),
        { seed: settings.seed, numRuns: runs, ...(settings.path ? { path: settings.path } : {}) },
      );
      const histogram = [...statuses].sort(([a], [b]) => a - b).map(([s, n]) => `${s}: ${n}`);
      console.info(`fuzz: ${sent - before} requests in ${Date.now() - started} ms (seed ${settings.seed}; ${histogram.join(', ')})`);
    },
    Math.max(120_000, settings.requests * 60),
  );

  for (const defect of settings.knownDefects) {
    it(`still meets known defect ${defect.id}: ${defect.what} (once fixed, remove it from KNOWN_DEFECTS in test/fuzz/fuzz-settings.ts)`, async () => {
      const details = await fc.check(
        fc.asyncProperty(
          defectCase(domain, ops, defect.family).map((c) => [c]),
          (batch) => exchange(batch, defectRejected),
        ),
        { seed: settings.seed, numRuns: DEFECT_RUNS, endOnFailure: true },
      );
      expect(details.failed, `defect ${defect.id} no longer shows in ${DEFECT_RUNS} requests: remove it from KNOWN_DEFECTS`).toBe(true);
      expect(String(details.errorInstance)).toMatch(defect.symptom);
    });
  }

  it('is ready after the run, logged no unexpected error, and no request it rejected left anything in the log', async () => {
    // A barrier: appends are committed in order, so once a valid submission is answered,
    // whatever an earlier request had queued (a half-written batch) is in the log too.
    const [barrier] = fc.sample(validCase(domain, schemaValidOps), { seed: settings.seed, numRuns: 1 });
    await exchange([barrier!], undefined, true);
    expect(target.warden.process.exitCode).toBeNull();
    const ready = await target.get('/health/ready');
    expect(ready.status, ready.text).toBe(200);
    log.refresh();
    const leftovers = log
      .tokens()
      .filter((t) => rejected.has(t))
      .map((t) => `${rejected.get(t)}\n  - left ${log.streamsOf(t).slice(0, 5).join(', ')}`);
    expect(leftovers, leftovers.join('\n')).toEqual([]);
    expect(rejected.size).toBeGreaterThan(0);
    // Errors of the known defects' requests are expected; any other (a worker choking on data
    // the API accepted, say) is not.
    const errors = target
      .serverProblems()
      .filter((line) => /"level":[56]0/.test(line) && ![...defectRejected.keys()].some((t) => line.includes(t)))
      .map((line) => line.slice(0, 1000));
    expect(errors, errors.join('\n')).toEqual([]);
    console.info(`fuzz: ${sent} requests in all`);
  });
});
