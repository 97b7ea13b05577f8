// The console's sign-in and session check (issue 12): password login latency with the chosen
// scrypt cost (one at a time, and 4 at once, as when a shift starts), and what the session check
// adds to a request: GET /api/console/v1/me with the cookie, against the same request without one
// (answered 401 before any session work) and GET /health/live (no authentication at all).
// Usage: node bench/console.mjs [logins, default 30] [session-check seconds, default 5]
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { serverRoles } from './support/server-roles.mjs';

const LOGINS = Number(process.argv[2] ?? 30);
const SECONDS = Number(process.argv[3] ?? 5);
const port = 43000 + Math.floor(Math.random() * 1000);
const url = `http://127.0.0.1:${port}`;
const dir = mkdtempSync(join(tmpdir(), 'warden-bench-console-'));
// The login throttle counts failures only; every login here succeeds.
// The request rate limit stays on (its cost is part of every request), with a limit never reached.
const env = {
  ...process.env,
  HOST: '127.0.0.1',
  WARDEN_LOG_LEVEL: 'warn',
  WARDEN_DATA_DIR: dir,
  WARDEN_PUBLIC_URL: url,
  WARDEN_RATE_LIMIT_PER_SECOND: '1000000',
  WARDEN_RATE_LIMIT_BURST: '10000000',
};
const PASSWORD = 'correct horse battery staple';

function cli(args, input) {
  const r = spawnSync(process.execPath, ['dist/apps/server/bundle/cli.js', ...args], { env, input, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${args.join(' ')}: ${r.stderr}`);
}

async function login(email) {
  const started = process.hrtime.bigint();
  const response = await fetch(`${url}/api/console/v1/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, password: PASSWORD }),
  });
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  if (response.status !== 200) throw new Error(`login ${response.status}: ${await response.text()}`);
  return { ms, cookie: (response.headers.get('set-cookie') ?? '').split(';')[0] };
}

const percentile = (values, p) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
};
const round = (n) => Math.round(n * 100) / 100;

async function loadRun(path, headers) {
  const result = await autocannon({ url, connections: 10, duration: SECONDS, requests: [{ method: 'GET', path, headers }] });
  return {
    rps: Math.round(result.requests.average),
    mean_ms: round(result.latency.average),
    p50_ms: result.latency.p50,
    p99_ms: result.latency.p99,
    non2xx: result.non2xx,
  };
}

const servers = serverRoles(env);
try {
  cli(['org', 'create', '--id', 'bench', '--name', 'Bench']);
  const emails = ['a', 'b', 'c', 'd'].map((n) => `mod-${n}@bench.example`);
  for (const email of emails) {
    cli(['user', 'create', '--org', 'bench', '--email', email, '--role', 'MODERATOR']);
    cli(['user', 'set-password', '--org', 'bench', '--email', email], `${PASSWORD}\n`);
  }
  await servers.start('all', port, dir);
  await login(emails[0]); // warm-up

  const serial = [];
  for (let i = 0; i < LOGINS; i++) serial.push((await login(emails[0])).ms);
  const concurrent = [];
  for (let i = 0; i < Math.ceil(LOGINS / 4); i++) {
    for (const { ms } of await Promise.all(emails.map(login))) concurrent.push(ms);
  }
  console.log('Password login (POST /api/console/v1/session, scrypt ln=15 r=8 p=3)');
  console.table([
    { logins: 'one at a time', n: serial.length, p50_ms: round(percentile(serial, 50)), p99_ms: round(percentile(serial, 99)) },
    { logins: '4 at once', n: concurrent.length, p50_ms: round(percentile(concurrent, 50)), p99_ms: round(percentile(concurrent, 99)) },
  ]);

  const { cookie } = await login(emails[1]);
  const rows = [
    { request: 'GET /health/live (no auth)', ...(await loadRun('/health/live', {})) },
    { request: 'GET /api/console/v1/me, no cookie (401)', ...(await loadRun('/api/console/v1/me', {})) },
    { request: 'GET /api/console/v1/me, session cookie', ...(await loadRun('/api/console/v1/me', { cookie })) },
  ];
  console.log(`Session check: 10 connections, ${SECONDS} s each (non2xx: the expected 401s of the request without a cookie)`);
  console.table(rows);
} finally {
  await servers.stopAll();
  rmSync(dir, { recursive: true, force: true });
}
