// GDPR erasures under load (docs/gdpr.md): while clients keep posting items that strike their
// users and call back (a spread, as bench/flood.mjs), erasures of users who have items are
// requested one after the other, each awaited to COMPLETED (or FAILED) through
// GET /api/v1/gdpr/delete/{requestId}. An erasure empties the read models' write-ahead log, which
// every connection to that file (the read-model thread's too) shares: this measures whether and how
// fast it completes beside a busy pipeline. Not a test: prints a table.
// Usage (after `npm run build`; the pinned Node, as docs/benchmarks.md says): npm exec -- node bench/erasure-under-load.mjs [erasures, default 6] [layout: all|split, default all] [clients, default 1]
// One client posts its next request when the last is answered, which about a second core's worth of
// evaluation keeps up with; more clients accept items faster than they are evaluated (overload: the
// backlog grows for as long as the run lasts).
// WARDEN_READ_MODEL_THREAD passes through (the bench sets `on` unless it is given).
import { createServer } from 'node:http';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, loadEnv, prepareDataDir, serverRoles } from './support/server-roles.mjs';
import { strikesConfig } from './support/strikes-config.mjs';

const ERASURES = Number(process.argv[2] ?? 6);
const LAYOUT = process.argv[3] ?? 'all';
const CLIENTS = Number(process.argv[4] ?? 1);
const USERS = 500;
const WARM_UP_MS = 8_000;
/** How long each erasure is awaited under load before the next is requested. */
const WAIT_MS = 60_000;

let callbacks = 0;
const receiver = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    callbacks++;
    res.end('ok');
  });
});
await new Promise((r) => receiver.listen(0, '127.0.0.1', r));
const dir = mkdtempSync(join(tmpdir(), 'warden-bench-erasure-'));
const configFile = join(dir, 'strikes.yaml');
writeFileSync(configFile, strikesConfig(`http://127.0.0.1:${receiver.address().port}`));
const env = {
  ...loadEnv(),
  WARDEN_READ_MODEL_THREAD: process.env.WARDEN_READ_MODEL_THREAD ?? 'on',
};
const dataDir = join(dir, 'data');
const key = prepareDataDir(env, dataDir, configFile, 'bench');
const servers = serverRoles(env);
const port = await freePort();
const roles =
  LAYOUT === 'split'
    ? [await servers.start('api', port, dataDir), await servers.start('worker', await freePort(), dataDir)]
    : [await servers.start('all', port, dataDir)];
/** Error and warning lines the server processes wrote meanwhile (WARDEN_LOG_LEVEL=warn). */
const complaints = [];
for (const child of roles)
  child.stderr.on('data', (chunk) =>
    complaints.push(
      ...String(chunk)
        .split('\n')
        .filter((l) => /"level":(40|50|60)/.test(l)),
    ),
  );
const url = `http://127.0.0.1:${port}`;
const post = (path, body) =>
  fetch(url + path, { method: 'POST', headers: { 'x-api-key': key, 'content-type': 'application/json' }, body: JSON.stringify(body) });

let stopping = false;
let accepted = 0;
/** CLIENTS clients, 100 items a request, every item a strike and a callback for one of USERS users. */
const clients = Array.from({ length: CLIENTS }, (_, c) =>
  (async () => {
    for (let b = 0; !stopping; b++) {
      const items = Array.from({ length: 100 }, (_, i) => ({
        id: `p${c}-${b}-${i}`,
        typeId: 'post',
        data: { text: 'buy spam now', author: { id: `u${(b * 100 + i) % USERS}`, typeId: 'user' } },
      }));
      const res = await post('/api/v1/items/async', { items });
      await res.text();
      if (res.status === 202) accepted += 100;
    }
  })(),
);

try {
  await new Promise((r) => setTimeout(r, WARM_UP_MS));
  const rows = [];
  /** Erasures still under way after WAIT_MS: awaited again once the load has stopped. */
  const pending = [];
  for (let k = 0; k < ERASURES; k++) {
    const started = performance.now();
    const before = { accepted, callbacks };
    const res = await post('/api/v1/gdpr/delete', { id: `u${k}`, typeId: 'user' });
    const { requestId } = await res.json();
    let state;
    const deadline = Date.now() + WAIT_MS;
    while (Date.now() < deadline) {
      state = await (await fetch(`${url}/api/v1/gdpr/delete/${requestId}`, { headers: { 'x-api-key': key } })).json();
      if (state.state === 'COMPLETED' || state.state === 'FAILED') break;
      await new Promise((r) => setTimeout(r, 100));
    }
    const seconds = (performance.now() - started) / 1000;
    if (state?.state !== 'COMPLETED' && state?.state !== 'FAILED') pending.push({ requestId, row: rows.length });
    rows.push({
      user: `u${k}`,
      answer: res.status,
      state: state?.state ?? 'no answer',
      seconds: seconds.toFixed(1),
      itemsPerSecond: Math.round((accepted - before.accepted) / seconds),
      callbacksPerSecond: Math.round((callbacks - before.callbacks) / seconds),
    });
  }
  stopping = true;
  await Promise.all(clients);
  const stopped = performance.now();
  for (const { requestId, row } of pending) {
    const deadline = Date.now() + 300_000;
    for (;;) {
      const state = await (await fetch(`${url}/api/v1/gdpr/delete/${requestId}`, { headers: { 'x-api-key': key } })).json();
      if (state.state === 'COMPLETED' || state.state === 'FAILED' || Date.now() > deadline) {
        rows[row].state += ` (${state.state} ${((performance.now() - stopped) / 1000).toFixed(1)} s after the load stopped)`;
        break;
      }
      await new Promise((r) => setTimeout(r, 250));
    }
  }
  console.log(
    `GDPR erasures under load (${LAYOUT === 'split' ? 'api + worker' : 'one process (all)'}, read-model thread ${env.WARDEN_READ_MODEL_THREAD}, ${CLIENTS} client${CLIENTS === 1 ? '' : 's'}): ${ERASURES} erasures of users with items, after ${WARM_UP_MS / 1000} s of load\n`,
  );
  console.log('| user | POST answer | state | request → state, s | items accepted/s meanwhile | callbacks/s meanwhile |');
  console.log('|---|---|---|---|---|---|');
  for (const r of rows) console.log(`| ${r.user} | ${r.answer} | ${r.state} | ${r.seconds} | ${r.itemsPerSecond} | ${r.callbacksPerSecond} |`);
  console.log(
    `\nError and warning lines logged by the server meanwhile: ${complaints.length}${complaints.length ? `, the first: ${complaints[0].slice(0, 300)}` : ''}`,
  );
} finally {
  stopping = true;
  await Promise.all(clients);
  await servers.stopAll();
  receiver.close();
  rmSync(dir, { recursive: true, force: true });
}
