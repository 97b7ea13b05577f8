import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { eventCount } from '../support/config-files.js';
import { startReceiver } from '../support/http-receiver.js';
import { waitUntilProcessed } from '../support/projection-progress.js';
import { waitFor } from '../support/wait-for.js';
import { freshDataDir, startConfigured, startWarden, testEnv } from '../support/warden-process.js';

const CONFIG = join(import.meta.dirname, '../fixtures/rules-org.yaml');
/**
 * 3,000 items in `npm test`, killed after 500 evaluations: the kill still lands mid-run with most of
 * the backlog unevaluated, which is the property; 10,000 runs with `node bench/full-size-tests.mjs
 * rules-crash` (RULES_CRASH_ITEMS=10000). A multiple of 1,000 (the requests' size).
 */
const ITEMS = Number(process.env['RULES_CRASH_ITEMS'] ?? 3_000);

describe('evaluation across a crash', () => {
  it('evaluates every accepted item exactly once in effect after kill -9 mid-evaluation', async () => {
    const dataDir = freshDataDir();
    const classifier = await startReceiver((_r, res) => res.end('{"score":0}'));
    const env = testEnv(dataDir, {
      CLASSIFIER_URL: classifier.url + '/score',
      // The fixture's callback URLs lead nowhere: keep retries out of the event counts.
      WARDEN_CALLBACK_RETRY_SCHEDULE: '1h',
    });
    const configured = await startConfigured(env, CONFIG, 'shop');
    const key = configured.key;
    let warden = configured.warden;
    try {
      for (let batch = 0; batch < ITEMS / 1000; batch++) {
        const items = Array.from({ length: 1000 }, (_, i) => {
          const n = batch * 1000 + i;
          return { id: `c-${n}`, typeId: 'post', data: { text: n % 3 === 0 ? `buy now ${n}` : `hello ${n}` } };
        });
        const res = await fetch(warden.url + '/api/v1/items/async', {
          method: 'POST',
          headers: { 'x-api-key': key, 'content-type': 'application/json' },
          body: JSON.stringify({ items }),
        });
        expect(res.status).toBe(202);
      }
      // Kill while the worker is part-way through.
      await waitFor(() => eventCount(dataDir, "type = 'ItemEvaluated'") >= 500, { what: 'the first 500 evaluations', intervalMs: 5 });
      await warden.stop('SIGKILL');
      const atKill = eventCount(dataDir, "type = 'ItemEvaluated'");
      expect(atKill).toBeLessThan(ITEMS);

      warden = await startWarden(env);
      // Once the worker has handled every submission, everything it will ever append is in the log.
      await waitUntilProcessed(warden.url, dataDir, 'rules-evaluation', ['ItemSubmitted'], 60_000);
      const db = new Database(join(dataDir, 'warden.db'), { readonly: true });
      try {
        const one = (sql: string) => (db.prepare(sql).get() as { n: number }).n;
        expect(one("SELECT count(*) AS n FROM events WHERE type = 'ItemSubmitted'")).toBe(ITEMS);
        expect(one("SELECT count(*) AS n FROM events WHERE type = 'ItemEvaluated'")).toBe(ITEMS);
        expect(one("SELECT count(DISTINCT stream) AS n FROM events WHERE type = 'ItemEvaluated'")).toBe(ITEMS);
        const expectedActions = Math.ceil(ITEMS / 3);
        expect(one("SELECT count(*) AS n FROM events WHERE type = 'ActionCallbackRequested'")).toBe(expectedActions);
        expect(one("SELECT count(DISTINCT json_extract(data, '$.deliveryId')) AS n FROM events WHERE type = 'ActionCallbackRequested'")).toBe(expectedActions);
        expect(one("SELECT count(*) AS n FROM events WHERE type = 'ReviewEnqueueRequested'")).toBe(expectedActions);
      } finally {
        db.close();
      }
    } finally {
      await warden.stop();
      await classifier.close();
    }
  }, 120_000);
});
