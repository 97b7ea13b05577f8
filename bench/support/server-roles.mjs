// Starting and stopping built server roles (`dist/`) for the benchmarks that measure a running server.
import { spawn, spawnSync } from 'node:child_process';
import { createServer } from 'node:http';
import { existsSync, readFileSync } from 'node:fs';

/**
 * Starts server roles with a common environment and keeps track of them, so that a benchmark can
 * stop every one it started, whatever failed. WARDEN_BENCH_NODE_ARGS adds Node options to every
 * server process (e.g. `--trace-gc`, with WARDEN_BENCH_STDERR=1). WARDEN_BENCH_PROFILE=<dir> writes a CPU profile of
 * every role there; WARDEN_BENCH_STDERR=1 passes their stderr (and stdout, where --trace-gc writes) through.
 */
export function serverRoles(env) {
  const started = [];

  /** Starts a role and waits for it to be ready; fails with its stderr if it exits first. */
  async function start(role, port, dataDir, extraEnv = {}) {
    const profile = process.env.WARDEN_BENCH_PROFILE ? ['--cpu-prof', '--cpu-prof-dir', process.env.WARDEN_BENCH_PROFILE] : [];
    const nodeArgs = process.env.WARDEN_BENCH_NODE_ARGS?.split(' ').filter(Boolean) ?? [];
    const child = spawn(process.execPath, [...profile, ...nodeArgs, 'dist/apps/server/bundle/main.js'], {
      env: { ...env, ...extraEnv, WARDEN_DATA_DIR: dataDir, WARDEN_ROLE: role, PORT: String(port) },
      stdio: ['ignore', process.env.WARDEN_BENCH_STDERR ? 'inherit' : 'ignore', 'pipe'],
    });
    started.push(child);
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr = (stderr + chunk).slice(-4000)));
    if (process.env.WARDEN_BENCH_STDERR) child.stderr.pipe(process.stderr);
    let exited;
    child.once('exit', (code, signal) => (exited = `${role} exited (${code ?? signal}) before it was ready:\n${stderr}`));
    const deadline = Date.now() + 30_000;
    for (;;) {
      if (exited) throw new Error(exited);
      if (Date.now() > deadline) throw new Error(`${role} not ready within 30 s:\n${stderr}`);
      try {
        if ((await fetch(`http://127.0.0.1:${port}/health/ready`)).ok) return child;
      } catch {}
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  /** Stops one role (SIGTERM) and waits for it to exit. */
  async function stop(child) {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
  }

  return { start, stop, stopAll: () => Promise.all(started.map(stop)) };
}

/**
 * CPU seconds each child has used (Linux: /proc/<pid>/stat utime + stime; NaN where it cannot be
 * read). Per request or per item it says what the work costs even when other processes take the
 * cores away, which a rate does not.
 */
export function cpuSeconds(children) {
  return children.map((c) => {
    const stat = `/proc/${c.pid}/stat`;
    if (!existsSync(stat)) return NaN;
    const fields = readFileSync(stat, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  });
}

/**
 * Waits until the children are idle (less than 5 % of a core over half a second, at most `ms`):
 * what they still do after a scenario's last answer (projections catching up) is part of its cost.
 */
export async function settled(children, ms = 30_000) {
  // A role that has exited has no CPU to add (NaN): the others still settle.
  const total = () => cpuSeconds(children).reduce((a, b) => a + (Number.isFinite(b) ? b : 0), 0);
  const deadline = Date.now() + ms;
  let last = total();
  while (Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 500));
    const now = total();
    if (now - last < 0.025) return;
    last = now;
  }
}

/** Runs the built CLI on `dataDir` with `input` on its standard input; returns its last line of output. */
export function runCli(env, dataDir, args, input) {
  const r = spawnSync(process.execPath, ['dist/apps/server/bundle/cli.js', ...args], {
    env: { ...env, WARDEN_DATA_DIR: dataDir },
    input,
    encoding: 'utf8',
  });
  if (r.status !== 0) throw new Error(`${args.join(' ')}: ${r.stdout}${r.stderr}`);
  return r.stdout.trim().split('\n').pop();
}

/** Applies a configuration file to a fresh data directory through the built CLI; returns a new API key of `orgId`. */
export function prepareDataDir(env, dataDir, configFile, orgId) {
  runCli(env, dataDir, ['apply', configFile]);
  return runCli(env, dataDir, ['api-key', 'create', '--org', orgId]);
}

/** The console password the benches give their users. */
export const BENCH_PASSWORD = 'correct horse battery staple';

/** Creates console user `email` of `orgId` with `role` and BENCH_PASSWORD, through the built CLI. */
export function createConsoleUser(env, dataDir, orgId, email, role) {
  runCli(env, dataDir, ['user', 'create', '--org', orgId, '--email', email, '--role', role]);
  runCli(env, dataDir, ['user', 'set-password', '--org', orgId, '--email', email], `${BENCH_PASSWORD}\n`);
}

/** Signs `email` in to the console at `url` (BENCH_PASSWORD); returns the session cookie and its CSRF token. */
export async function consoleSignIn(url, email) {
  const login = await fetch(`${url}/api/console/v1/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, password: BENCH_PASSWORD }),
  });
  if (login.status !== 200) throw new Error(`sign-in of ${email}: ${login.status} ${await login.text()}`);
  const { csrfToken } = await login.json();
  return { cookie: (login.headers.get('set-cookie') ?? '').split(';')[0], csrfToken };
}

/** A port nothing listens on now (the system picks it): fixed ranges collided with other servers on the machine. */
export async function freePort() {
  const probe = createServer();
  await new Promise((r) => probe.listen(0, '127.0.0.1', r));
  const { port } = probe.address();
  await new Promise((r) => probe.close(r));
  return port;
}

/** The environment of a bench's server roles: loopback, warnings only, callbacks allowed to loopback, the rate limiter out of the way. */
export const loadEnv = () => ({
  ...process.env,
  HOST: '127.0.0.1',
  WARDEN_LOG_LEVEL: 'warn',
  WARDEN_OUTBOUND_ALLOWLIST: '127.0.0.0/8',
  WARDEN_RATE_LIMIT_PER_SECOND: '1000000',
  WARDEN_RATE_LIMIT_BURST: '10000000',
});
