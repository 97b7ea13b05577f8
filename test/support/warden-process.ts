import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { waitFor } from './wait-for.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const MAIN = join(ROOT, 'dist/apps/server/bundle/main.js');
/** The built CLI entry (for tests that start it some other way than runCli). */
export const CLI_ENTRY = join(ROOT, 'dist/apps/server/bundle/cli.js');
/** The built server's bundle folder (main.js, cli.js, the threads' entries and their chunks). */
export const BUNDLE_DIR = dirname(MAIN);

export const freshDataDir = () => mkdtempSync(join(tmpdir(), 'warden-e2e-'));

/** Environment for a test server: loopback receivers allowed, quiet logs unless asked. */
export function testEnv(dataDir: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    PATH: process.env['PATH'],
    HOME: process.env['HOME'],
    WARDEN_DATA_DIR: dataDir,
    WARDEN_OUTBOUND_ALLOWLIST: '127.0.0.0/8',
    // scrypt at 2^10 instead of 2^15: the suite creates users and signs in hundreds of times, each
    // 0.4 s of CPU at the production cost (docs/configuration.md, WARDEN_PASSWORD_HASH_COST).
    WARDEN_PASSWORD_HASH_COST: '10',
    WARDEN_LOG_LEVEL: 'info',
    HOST: '127.0.0.1',
    PORT: '0',
    ...extra,
  };
}

export interface RunningWarden {
  readonly url: string;
  readonly process: ChildProcess;
  readonly logs: () => string;
  /** The fields of its "warden started" line (apps/server/src/server.ts). */
  readonly started: Readonly<Record<string, unknown>>;
  /** Sends a signal and resolves with the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/**
 * Starts the built server as a real process and waits for its "started" log line. `entry`: another
 * copy of the server's bundle (a test that takes a file out of it).
 */
export function startWarden(env: NodeJS.ProcessEnv, timeoutMs = 30_000, entry = MAIN): Promise<RunningWarden> {
  const child = spawn(process.execPath, [entry], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  killWhenTestProcessExits(child);
  let output = '';
  let started = false;
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  return new Promise((resolvePromise, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`Warden did not start in ${timeoutMs} ms:\n${output}`));
    }, timeoutMs);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      // Only until it started: a long-running server writes thousands of lines, and scanning all
      // of them on every chunk made the collector quadratic.
      if (started) return;
      const line = output.split('\n').find((l) => l.includes('"msg":"warden started"'));
      if (line) {
        started = true;
        clearTimeout(timer);
        const fields = JSON.parse(line) as Record<string, unknown>;
        resolvePromise({
          url: String(fields['url']),
          started: fields,
          process: child,
          logs: () => output,
          stop: async (signal = 'SIGTERM') => {
            if (child.exitCode === null) child.kill(signal);
            return exited;
          },
        });
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`Warden exited with ${code} before starting:\n${output}`));
    });
  });
}

/**
 * Servers still running when the test file's worker exits (a failed beforeAll, a forgotten stop)
 * are killed then: otherwise they outlive the file and take CPU from the files after it.
 */
const running = new Set<ChildProcess>();
const killRunning = () => {
  for (const child of running) child.kill('SIGKILL');
};
process.once('exit', killRunning);
// vitest ends a file's worker with SIGTERM, which skips 'exit' handlers: kill them, then let the
// signal take its course.
process.once('SIGTERM', () => {
  killRunning();
  process.kill(process.pid, 'SIGTERM');
});
function killWhenTestProcessExits(child: ChildProcess): void {
  running.add(child);
  child.once('exit', () => running.delete(child));
}

export interface CliResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

export function runCli(args: string[], env: NodeJS.ProcessEnv): Promise<CliResult> {
  return runNode(CLI_ENTRY, args, env);
}

/** Runs the server entry expecting it to fail (bad configuration, unreachable store). */
export function runServerToExit(env: NodeJS.ProcessEnv): Promise<CliResult> {
  return runNode(MAIN, [], env);
}

/** Runs a CLI command with `input` on its standard input (e.g. `user set-password`). */
export function runCliWithInput(args: string[], env: NodeJS.ProcessEnv, input: string): Promise<CliResult> {
  return runNode(CLI_ENTRY, args, env, input);
}

function runNode(script: string, args: string[], env: NodeJS.ProcessEnv, input?: string): Promise<CliResult> {
  return new Promise((resolvePromise) => {
    const child = spawn(process.execPath, [script, ...args], { env, stdio: [input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'] });
    if (input !== undefined) child.stdin!.end(input);
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
    child.once('exit', (code) => resolvePromise({ code, stdout, stderr }));
  });
}

/** Creates an organization and its first key through the CLI, in one call; returns the key (last stdout line). */
export async function createOrgWithKey(env: NodeJS.ProcessEnv, orgId: string): Promise<string> {
  const org = await runCli([...orgWithKeyCommand(orgId)], env);
  if (org.code !== 0) throw new Error(`org create failed: ${org.stderr}`);
  return lastLine(org.stdout);
}

export async function createKey(env: NodeJS.ProcessEnv, orgId: string, extra: string[] = []): Promise<string> {
  const key = await runCli(['api-key', 'create', '--org', orgId, ...extra], env);
  if (key.code !== 0) throw new Error(`api-key create failed: ${key.stderr}`);
  return lastLine(key.stdout);
}

export const lastLine = (text: string) => text.trimEnd().split('\n').pop()!;

/**
 * `signing-key retire` of a key rotated out moments ago: refused until a few seconds after the
 * rotation (docs/callbacks.md), the refusal naming the instant it may be retired from. Runs it,
 * and if refused, again once the clock has passed that instant: one refusal and one retirement,
 * instead of a run every half second until one succeeds. Returns both runs.
 */
export async function retireRotatedKey(env: NodeJS.ProcessEnv, orgId: string, kid: string): Promise<{ refused?: CliResult; retired: CliResult }> {
  // `--kid=<kid>`: a key id may begin with '-', which would read as an option after a space.
  const args = ['signing-key', 'retire', '--org', orgId, `--kid=${kid}`];
  const first = await runCli(args, env);
  if (first.code === 0) return { retired: first };
  const from = /retire it from (\S+) on/.exec(first.stderr)?.[1];
  if (from === undefined) throw new Error(`signing-key retire failed without naming when it may: ${first.stderr}`);
  const retirable = Date.parse(from);
  await waitFor(() => Date.now() >= retirable, `the clock to reach ${from}, when ${kid} may be retired`);
  return { refused: first, retired: await runCli(args, env) };
}

/** Applies a configuration file through the CLI. */
export async function applyConfig(env: NodeJS.ProcessEnv, configFile: string): Promise<void> {
  const applied = await runCli(['apply', configFile], env);
  if (applied.code !== 0) throw new Error(`apply failed: ${applied.stderr}`);
}

/** Applies a configuration file through the CLI, creates a key of `orgId` and starts the server. */
export async function startConfigured(env: NodeJS.ProcessEnv, configFile: string, orgId: string): Promise<{ warden: RunningWarden; key: string }> {
  const [, keyMade] = await runCliBatch(env, [
    ['apply', configFile],
    ['api-key', 'create', '--org', orgId],
  ]);
  return { warden: await startWarden(env), key: keyMade!.at(-1)! };
}

/**
 * Creates an active dashboard user with a password through the CLI (`user create
 * --with-password`, the password on standard input: one process); returns its id. The
 * organization must exist.
 */
export async function createConsoleUser(
  dataDir: string,
  orgId: string,
  email: string,
  password: string,
  roles: readonly string[],
  env: NodeJS.ProcessEnv = testEnv(dataDir),
): Promise<string> {
  const { args, input } = consoleUserCommand(orgId, email, password, roles);
  const created = await runCliWithInput([...args], env, `${input}\n`);
  if (created.code !== 0) throw new Error(`user create failed: ${created.stderr}`);
  return lastLine(created.stdout);
}

/** One command of a `warden batch` (docs/cli.md, "Batches"): its arguments, and its standard input. */
export type BatchCommand = readonly string[] | { readonly args: readonly string[]; readonly input: string };

/**
 * Runs `commands` through one `warden batch` process: a set-up of many CLI steps costs one
 * start-up instead of one each (docs/testing.md, "What the suite costs"). Resolves with each
 * command's output lines, in order; rejects naming the first command that failed.
 */
export async function runCliBatch(env: NodeJS.ProcessEnv, commands: readonly BatchCommand[]): Promise<string[][]> {
  const script = commands.map((c) => JSON.stringify(c)).join('\n');
  const result = await runCliWithInput(['batch'], env, `${script}\n`);
  const reports = result.stdout
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as { exit: number; out: string[]; error: string | null });
  if (result.code !== 0 || reports.length !== commands.length) {
    // Named by its arguments only: an entry's input is a password.
    const failed = reports.length === 0 ? 'the script' : JSON.stringify(argsOf(commands[reports.length - 1]!));
    throw new Error(`warden batch failed (exit ${result.code}) at ${failed}: ${reports.at(-1)?.error ?? result.stderr}`);
  }
  return reports.map((r) => r.out);
}

const argsOf = (command: BatchCommand): readonly string[] => ('args' in command ? command.args : command);

/** The `org create --with-key` command of a batch (see createOrgWithKey): the key is its last line. */
export function orgWithKeyCommand(orgId: string): readonly string[] {
  return ['org', 'create', '--id', orgId, '--name', `Org ${orgId}`, '--with-key'];
}

/** The `user create --with-password` command of a batch (see createConsoleUser). */
export function consoleUserCommand(
  orgId: string,
  email: string,
  password: string,
  roles: readonly string[],
): { readonly args: readonly string[]; readonly input: string } {
  return { args: ['user', 'create', '--org', orgId, '--email', email, ...roles.flatMap((r) => ['--role', r]), '--with-password'], input: password };
}

/**
 * Calls `fn` on every item, at most `limit` at a time. For set-up steps that are processes (CLI
 * calls) or password hashes: side by side they keep both cores busy, and a limit keeps a file
 * from starting dozens of Node processes at once on a small machine.
 */
export async function forEachConcurrently<T>(items: readonly T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < items.length) await fn(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
}

/** Signs in with a password; the session cookie (`warden_session=...`, ready for a Cookie header) and the CSRF token. */
export async function consoleLogin(baseUrl: string, email: string, password: string): Promise<{ cookie: string; csrfToken: string }> {
  const response = await fetch(`${baseUrl}/api/console/v1/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, password }),
  });
  if (response.status !== 200) throw new Error(`console login failed: ${response.status} ${await response.text()}`);
  const setCookie = response.headers.get('set-cookie') ?? '';
  const body = (await response.json()) as { csrfToken: string };
  return { cookie: setCookie.split(';')[0]!, csrfToken: body.csrfToken };
}
