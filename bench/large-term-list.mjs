// Large term lists (docs/rules.md, "Evaluation"; docs/benchmarks.md, "Large term lists"): a
// TEXT_CONTAINS rule of TERMS terms, short items. Past 1,000 terms a list is matched on the regex
// thread (TermMatcher.offThread), so every item's match crosses to it: what that crossing costs per
// item, against a list small enough to be matched in place. Each row is a fresh data directory:
// ITEMS items of a few words (none matching), in requests of 100 over 4 clients, then the time until
// every one is evaluated (`ItemEvaluated` counted in the log), and the server's CPU per item.
//
//   node bench/large-term-list.mjs [items=5000] [term counts=100,10000,100000]   (after `npm run build`; one process)
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { randomWords } from './support/random-words.mjs';
import { notifyingOrg } from './support/text-rules.mjs';
import { cpuSeconds, freePort, loadEnv, prepareDataDir, serverRoles } from './support/server-roles.mjs';

const ITEMS = Number(process.argv[2] ?? 5000);
const TERM_COUNTS = (process.argv[3] ?? '100,10000,100000').split(',').map(Number);
const PER_REQUEST = 100;
const CLIENTS = 4;

/** `count` distinct terms that never occur in randomWords' text. */
const terms = (count) => Array.from({ length: count }, (_, i) => `zq${i.toString(36)}term`);

/** The organization: one LIVE rule whose one condition is a TEXT_CONTAINS of `count` terms (no item matches, so nothing calls back). */
const organization = (count) => notifyingOrg('terms', 'http://127.0.0.1:9', `{ type: TEXT_CONTAINS, args: { terms: ${JSON.stringify(terms(count))} } }`);

const evaluated = (dataDir) => {
  const db = new Database(join(dataDir, 'warden.db'), { readonly: true });
  try {
    return db.prepare("SELECT count(*) AS n FROM events WHERE type = 'ItemEvaluated'").get().n;
  } finally {
    db.close();
  }
};

const dir = mkdtempSync(join(tmpdir(), 'warden-bench-terms-'));
const servers = serverRoles(loadEnv());
const rows = [];
try {
  for (const count of TERM_COUNTS) {
    const dataDir = join(dir, `terms-${count}`);
    const config = join(dir, `terms-${count}.yaml`);
    writeFileSync(config, organization(count));
    const key = prepareDataDir(loadEnv(), dataDir, config, 'terms');
    const port = await freePort();
    const server = await servers.start('all', port, dataDir);
    const submit = async (items) => {
      const response = await fetch(`http://127.0.0.1:${port}/api/v1/items/async/`, {
        method: 'POST',
        headers: { 'x-api-key': key, 'content-type': 'application/json' },
        body: JSON.stringify({ items }),
      });
      if (response.status !== 202) throw new Error(`${response.status} ${await response.text()}`);
    };
    const item = (id) => ({ id, typeId: 'post', data: { text: randomWords(120, id.length + rows.length + 7) } });
    // Warm-up: the list compiled (on the thread too) before the clock starts.
    await submit([item('warm-up')]);
    while (evaluated(dataDir) < 1) await new Promise((r) => setTimeout(r, 20));

    const cpuBefore = cpuSeconds([server])[0];
    const started = performance.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: CLIENTS }, async () => {
        while (next < ITEMS) {
          const from = next;
          next += PER_REQUEST;
          await submit(Array.from({ length: Math.min(PER_REQUEST, ITEMS - from) }, (_, i) => item(`item-${from + i}`)));
        }
      }),
    );
    const accepted = performance.now();
    while (evaluated(dataDir) < ITEMS + 1) await new Promise((r) => setTimeout(r, 20));
    const done = performance.now();
    const cpu = cpuSeconds([server])[0] - cpuBefore;
    rows.push({ count, accepting: (accepted - started) / 1000, seconds: (done - started) / 1000, cpu });
    await servers.stop(server);
  }
  console.log(`\nLarge term lists: ${ITEMS.toLocaleString('en-US')} short items against one TEXT_CONTAINS rule (one process)\n`);
  console.log('| terms | matched | accepting s | evaluated after s | items/s | server CPU ms per item |');
  console.log('|---|---|---|---|---|---|');
  for (const r of rows) {
    const where = r.count > 1000 ? 'on the regex thread' : 'in place';
    console.log(
      `| ${r.count.toLocaleString('en-US')} | ${where} | ${r.accepting.toFixed(1)} | ${r.seconds.toFixed(1)} | ${Math.round(ITEMS / r.seconds)} | ${((r.cpu * 1000) / ITEMS).toFixed(2)} |`,
    );
  }
} finally {
  await servers.stopAll();
  rmSync(dir, { recursive: true, force: true });
}
