// Long texts against a costly regular expression (docs/rules.md, "Evaluation"; docs/benchmarks.md,
// "Regular expressions on long texts"): one organization ("regex") posts ITEMS items whose text is
// 250,000 characters of words in random order, each ending in a match of its rule
// `(?i)(?:money|free|win).{0,1000}(?:bitcoin|crypto)` (RE2 scans the whole text: about 0.45 s per item on
// this project's machine); meanwhile another organization ("other") posts one short item every 100 ms,
// whose rule calls back at once. Prints the other organization's callback latency during the burst
// (202 → callback) and how long the long items took to be called back.
//
//   node bench/long-text-regex.mjs [items=16]     (after `npm run build`; one process, `npm start`'s layout)
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomWords } from './support/random-words.mjs';
import { notifyingOrg } from './support/text-rules.mjs';
import { freePort, loadEnv, prepareDataDir, serverRoles } from './support/server-roles.mjs';

const ITEMS = Number(process.argv[2] ?? 16);
const TEXT_LENGTH = 250_000; // under WARDEN_MAX_STRING_BYTES (256 KiB) in UTF-8
const OTHER_EVERY_MS = 100;
const now = () => performance.now();

const arrivals = new Map();
const receiver = createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    const id = JSON.parse(Buffer.concat(chunks).toString('utf8')).item?.id;
    if (id !== undefined && !arrivals.has(id)) arrivals.set(id, now());
    res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
  });
});
await new Promise((r) => receiver.listen(0, '127.0.0.1', r));
const receiverUrl = `http://127.0.0.1:${receiver.address().port}`;

/** A long text of random words ending in a match (RE2 scans it all). */
const longText = (seed) => `${randomWords(TEXT_LENGTH - 20, seed)} free bitcoin`;

const dir = mkdtempSync(join(tmpdir(), 'warden-bench-regex-'));
const servers = serverRoles(loadEnv());
try {
  const dataDir = join(dir, 'data');
  const file = (name, text) => {
    const path = join(dir, `${name}.yaml`);
    writeFileSync(path, text);
    return path;
  };
  const regexKey = prepareDataDir(
    loadEnv(),
    dataDir,
    file('regex', notifyingOrg('regex', receiverUrl, "{ type: TEXT_MATCHES_REGEX, args: { pattern: '(?i)(?:money|free|win).{0,1000}(?:bitcoin|crypto)' } }")),
    'regex',
  );
  const otherKey = prepareDataDir(
    loadEnv(),
    dataDir,
    file('other', notifyingOrg('other', receiverUrl, '{ type: TEXT_CONTAINS, args: { terms: [hello] } }')),
    'other',
  );
  const port = await freePort();
  await servers.start('all', port, dataDir);
  const url = `http://127.0.0.1:${port}`;
  const submit = async (key, items) => {
    const response = await fetch(`${url}/api/v1/items/async/`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      body: JSON.stringify({ items }),
    });
    if (response.status !== 202) throw new Error(`${response.status} ${await response.text()}`);
    return now();
  };
  const until = async (condition) => {
    while (!condition()) await new Promise((r) => setTimeout(r, 5));
  };

  // Warm-up: both organizations' paths once.
  await submit(otherKey, [{ id: 'warm-other', typeId: 'post', data: { text: 'hello' } }]);
  await submit(regexKey, [{ id: 'warm-regex', typeId: 'post', data: { text: 'win a free bitcoin' } }]);
  await until(() => arrivals.has('warm-other') && arrivals.has('warm-regex'));

  const texts = Array.from({ length: ITEMS }, (_, i) => longText(i + 1));
  const started = now();
  const longSent = new Map();
  const sending = (async () => {
    for (const [i, text] of texts.entries()) longSent.set(`long-${i}`, await submit(regexKey, [{ id: `long-${i}`, typeId: 'post', data: { text } }]));
  })();
  const otherSent = new Map();
  for (let i = 0; ; i++) {
    const id = `other-${i}`;
    otherSent.set(id, await submit(otherKey, [{ id, typeId: 'post', data: { text: `hello ${i}` } }]));
    if (longSent.size === ITEMS && [...longSent.keys()].every((id) => arrivals.has(id))) break;
    // Pacing (a steady offered load), not a wait for a state.
    const due = started + (i + 1) * OTHER_EVERY_MS;
    if (due > now()) await new Promise((r) => setTimeout(r, due - now()));
  }
  await sending;
  await until(() => [...otherSent.keys()].every((id) => arrivals.has(id)));
  const lat = [...otherSent].map(([id, at]) => arrivals.get(id) - at).sort((a, b) => a - b);
  const pct = (p) => Math.round(lat[Math.min(lat.length - 1, Math.floor(p * lat.length))]);
  const lastLong = Math.max(...[...longSent.keys()].map((id) => arrivals.get(id)));
  console.log(`\nLong texts against a costly regular expression: ${ITEMS} items of ${TEXT_LENGTH.toLocaleString('en-US')} characters (one process)\n`);
  console.log('| long items called back after s | other organization items | other p50 ms | p99 ms | max ms |');
  console.log('|---|---|---|---|---|');
  console.log(`| ${((lastLong - started) / 1000).toFixed(1)} | ${lat.length} | ${pct(0.5)} | ${pct(0.99)} | ${Math.round(lat.at(-1))} |`);
} finally {
  await servers.stopAll();
  receiver.close();
  rmSync(dir, { recursive: true, force: true });
}
