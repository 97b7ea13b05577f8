// The review console in a real browser (issue 15): what the browser downloads (gzipped), the time
// to the first screen (sign-in form; the queues of a signed-in moderator), and job-to-job time: a
// decision taken by keyboard until the next job is on screen, through claim, job view and render.
// Usage: node bench/console-ui.mjs [jobs, default 60]
// Needs Debian's Chromium headless shell (/usr/bin/chromium-headless-shell, or WARDEN_CHROMIUM), as the browser tests do.
/* global document -- page.waitForFunction's callback runs in the browser */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { chromium } from 'playwright-core';
import { serverRoles } from './support/server-roles.mjs';

const JOBS = Number(process.argv[2] ?? 60);
const port = 44000 + Math.floor(Math.random() * 1000);
const url = `http://127.0.0.1:${port}`;
const dir = mkdtempSync(join(tmpdir(), 'warden-bench-console-ui-'));
const env = { ...process.env, HOST: '127.0.0.1', WARDEN_LOG_LEVEL: 'warn', WARDEN_DATA_DIR: dir, WARDEN_OUTBOUND_ALLOWLIST: '127.0.0.0/8' };
const PASSWORD = 'correct horse battery staple';
const percentile = (values, p) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.ceil((p / 100) * values.length) - 1)];
const round = (n) => Math.round(n * 10) / 10;

// 1. What the browser downloads: the page and its hashed assets, raw and gzipped.
const assets = join('dist/console/assets');
const files = [['index.html', readFileSync('dist/console/index.html')], ...readdirSync(assets).map((f) => [f, readFileSync(join(assets, f))])];
console.log('Console bundle (dist/console, built by npm run build)');
console.table([
  ...files.map(([name, bytes]) => ({ file: name, kB: round(bytes.length / 1024), gzip_kB: round(gzipSync(bytes).length / 1024) })),
  {
    file: 'total',
    kB: round(files.reduce((n, [, b]) => n + b.length, 0) / 1024),
    gzip_kB: round(files.reduce((n, [, b]) => n + gzipSync(b).length, 0) / 1024),
  },
]);

// A platform that serves each post's image and accepts callbacks.
const png = readFileSync('docs/console/queues.png');
const platform = createServer((req, res) => {
  if (req.url.startsWith('/media/')) return res.writeHead(200, { 'content-type': 'image/png' }).end(png);
  req.resume();
  req.on('end', () => res.writeHead(200).end());
}).listen(0, '127.0.0.1');
await new Promise((r) => platform.once('listening', r));
const platformUrl = `http://127.0.0.1:${platform.address().port}`;

const config = join(dir, 'bench.yaml');
writeFileSync(
  config,
  `org: { id: bench, name: Bench }
itemTypes:
  - { id: post, name: Post, kind: CONTENT, fields: [{ name: text, type: STRING, required: true }, { name: images, type: IMAGE, array: true }] }
  - { id: user, name: User, kind: USER, fields: [{ name: name, type: STRING }] }
policies:
  - { id: spam, name: Spam, penalty: LOW }
actions:
  - { id: remove, name: Remove, kind: CUSTOMER_DEFINED_ACTION, itemTypeIds: [post], callback: { url: ${platformUrl}/hooks } }
queues:
  - { id: default, name: Default, isDefault: true }
`,
);
const cli = (args, input) => {
  const r = spawnSync(process.execPath, ['dist/apps/server/bundle/cli.js', ...args], { env, input, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${args.join(' ')}: ${r.stderr}`);
  return r.stdout.trim().split('\n').pop();
};
cli(['apply', config]);
const key = cli(['api-key', 'create', '--org', 'bench']);
cli(['user', 'create', '--org', 'bench', '--email', 'mod@bench.example', '--role', 'MODERATOR']);
cli(['user', 'set-password', '--org', 'bench', '--email', 'mod@bench.example'], `${PASSWORD}\n`);

const servers = serverRoles(env);
const browser = await chromium.launch({
  executablePath: process.env.WARDEN_CHROMIUM ?? '/usr/bin/chromium-headless-shell',
  args: [
    '--no-sandbox',
    '--disable-gpu',
    '--disable-quic',
    '--no-first-run',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
  ],
});
try {
  await servers.start('all', port, dir);
  for (let i = 0; i < JOBS + 1; i++) {
    const r = await fetch(`${url}/api/v1/report`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': key },
      body: JSON.stringify({
        reporter: { kind: 'user', id: `r${i}`, typeId: 'user' },
        reportedAt: '2026-11-27T09:00:00Z',
        reportedItem: { id: `post-${i}`, typeId: 'post', data: { text: `post number ${i}`, images: [`${platformUrl}/media/${i}.png`] } },
        reportedForReason: { reason: 'spam', policyId: 'spam' },
      }),
    });
    if (r.status !== 201) throw new Error(`report ${r.status}: ${await r.text()}`);
  }

  // 2. Time to first screen: a cold browser context each time (no cache), page load until the
  //    screen a person acts on is drawn; performance.now() in the page counts from navigation.
  const cold = async (path, ready, cookie) => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    if (cookie) await context.addCookies([{ name: 'warden_session', value: cookie, url }]);
    const page = await context.newPage();
    await page.goto(`${url}${path}`);
    await page.locator(ready).first().waitFor();
    const ms = await page.evaluate(() => performance.now());
    await context.close();
    return ms;
  };
  const login = await fetch(`${url}/api/console/v1/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: 'mod@bench.example', password: PASSWORD }),
  });
  const cookie = login.headers.get('set-cookie').split(';')[0].split('=')[1];
  const signInTimes = [];
  const queuesTimes = [];
  for (let i = 0; i < 10; i++) {
    signInTimes.push(await cold('/console/', 'form button[type=submit]'));
    queuesTimes.push(await cold('/console/queues', 'table.queues tbody tr', cookie));
  }
  console.log('Time to first screen (cold context, no cache; 10 loads each)');
  console.table([
    { screen: 'sign-in form', p50_ms: round(percentile(signInTimes, 50)), max_ms: round(Math.max(...signInTimes)) },
    { screen: 'queues (signed in)', p50_ms: round(percentile(queuesTimes, 50)), max_ms: round(Math.max(...queuesTimes)) },
  ]);

  // 3. Job to job: Ignore by keyboard (i, Ctrl+Enter) until the next job's heading is on screen.
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  await context.addCookies([{ name: 'warden_session', value: cookie, url }]);
  const page = await context.newPage();
  await page.goto(`${url}/console/review/default`);
  const heading = page.locator('article.job h2');
  await heading.waitFor();
  const times = [];
  for (let i = 0; i < JOBS; i++) {
    const before = await heading.textContent();
    await page.keyboard.press('i');
    const started = performance.now();
    await page.keyboard.press('Control+Enter');
    await page.waitForFunction(
      (previous) => {
        const h = document.querySelector('article.job h2');
        return h !== null && h.textContent !== previous;
      },
      before,
      { polling: 'raf' },
    );
    times.push(performance.now() - started);
  }
  await context.close();
  console.log(`Job to job (decision by keyboard → next job drawn; ${JOBS} jobs, one moderator)`);
  console.table([
    {
      jobs: JOBS,
      p50_ms: round(percentile(times, 50)),
      p95_ms: round(percentile(times, 95)),
      max_ms: round(Math.max(...times)),
      jobs_per_min: Math.round(60_000 / (times.reduce((a, b) => a + b, 0) / times.length)),
    },
  ]);
} finally {
  await browser.close();
  await servers.stopAll();
  platform.close();
}
