import { join } from 'node:path';
import { Pool } from 'undici';
import { type Receiver, startReceiver } from '../support/http-receiver.js';
import { RESPONSE_TIMEOUT_MS, sendOverLimit } from '../support/over-limit.js';
import { freshDataDir, type RunningWarden, startConfigured, testEnv } from '../support/warden-process.js';
import type { BodySpec, FuzzCase } from './hostile-arbitraries.js';
import { renderJson } from './json-text.js';
import type { Exchange } from './response-checks.js';
import type { ItemTypeInfo } from './schema-arbitraries.js';

const ORG_CONFIG = join(import.meta.dirname, 'fuzz-org.yaml');
/** The server's default body limit, set explicitly so the suite knows which bodies exceed it. */
export const BODY_LIMIT_BYTES = 10 * 1024 * 1024;
/** The limit of the routes anyone may reach (signing in, accepting an invitation), set explicitly too. */
export const PUBLIC_BODY_LIMIT_BYTES = 64 * 1024;
/** Those routes (ConsolePublic), whichever method and trailing slash a case uses. */
const PUBLIC_ROUTE = /^\/api\/console\/v1\/(session|invitations\/accept)\/?(\?|$)/;

/**
 * The body limit a case's route reads under. A body over it is refused with an early 413 and the
 * connection closed, so it goes the careful way (sendOverLimit): written regardless, it may meet a
 * reset connection (EPIPE) before the answer is read, which depends on timing, not on the server.
 */
export function bodyLimitOf(path: string): number {
  return PUBLIC_ROUTE.test(path) ? PUBLIC_BODY_LIMIT_BYTES : BODY_LIMIT_BYTES;
}

/**
 * The server under fuzzing: the built server on a fresh data directory, the fuzz organization's
 * catalog applied (item types, rules that fire, callbacks to a real receiver on loopback) and an
 * API key; requests go over a few keep-alive connections.
 */
export interface FuzzTarget {
  readonly warden: RunningWarden;
  readonly dataDir: string;
  /** The environment the server runs with, for the CLI. */
  readonly env: NodeJS.ProcessEnv;
  /** The fuzz organization's API key (`fuzz`). */
  readonly apiKey: string;
  readonly receiver: Receiver;
  readonly itemTypes: readonly ItemTypeInfo[];
  /** The server's warning and error log lines since it started (an unexpected 500 logs its stack). */
  serverProblems(): string[];
  /** Sends a case with the API key, or with `auth` instead (a console session's cookie and CSRF header). */
  send(c: FuzzCase, token: string, auth?: Readonly<Record<string, string>>): Promise<Exchange>;
  get(path: string): Promise<{ status: number; text: string }>;
  stop(): Promise<void>;
}

/** A case's answer, or why it got none (the connection failed). */
export type Sent = Exchange | { readonly token: string; readonly error: string };

/** Sends the cases at once, each marked with the next token of `tokens`. */
export function sendAll(target: FuzzTarget, cases: readonly FuzzCase[], tokens: () => string, auth?: Readonly<Record<string, string>>): Promise<Sent[]> {
  return Promise.all(
    cases.map(async (c) => {
      const token = tokens();
      try {
        return await target.send(c, token, auth);
      } catch (error) {
        return { token, error: String(error) };
      }
    }),
  );
}

export async function startFuzzTarget(connections: number): Promise<FuzzTarget> {
  const receiver = await startReceiver();
  const dataDir = freshDataDir();
  const env = testEnv(dataDir, {
    RECEIVER_URL: receiver.url,
    WARDEN_BODY_LIMIT_BYTES: String(BODY_LIMIT_BYTES),
    WARDEN_PUBLIC_BODY_LIMIT_BYTES: String(PUBLIC_BODY_LIMIT_BYTES),
    // The fuzz suite is one client sending as fast as it can; rate limits are not what it tests.
    WARDEN_RATE_LIMIT_PER_SECOND: '1000000',
    WARDEN_RATE_LIMIT_BURST: '10000000',
    // Durability against power loss is not what it tests either; an fsync per commit would be most of its time.
    WARDEN_SQLITE_SYNC: 'normal',
  });
  const { warden, key } = await startConfigured(env, ORG_CONFIG, 'fuzz');
  const problems = keepProblemLines(warden);
  // A request that gets no answer is a finding, not a hang of the suite.
  const pool = new Pool(warden.url, { connections, pipelining: 1, headersTimeout: RESPONSE_TIMEOUT_MS, bodyTimeout: RESPONSE_TIMEOUT_MS });

  const get = async (path: string) => {
    const res = await pool.request({ path, method: 'GET', headers: { 'x-api-key': key } });
    return { status: res.statusCode, text: await res.body.text() };
  };
  const types = await get('/api/v1/item_types/');
  if (types.status !== 200) throw new Error(`GET /api/v1/item_types/ answered ${types.status}: ${types.text}`);

  return {
    warden,
    dataDir,
    env,
    apiKey: key,
    receiver,
    itemTypes: (JSON.parse(types.text) as { itemTypes: ItemTypeInfo[] }).itemTypes,
    serverProblems: () => problems,
    get,
    async send(c, token, auth = { 'x-api-key': key }) {
      const body = renderBody(c.body, token);
      const method = c.method ?? 'POST';
      const headers: Record<string, string> = { ...auth, 'x-request-id': token };
      if (c.contentType !== null) headers['content-type'] = c.contentType;
      const exchange = { token, path: c.path, ...(c.operation ? { operation: c.operation } : {}), contentType: c.contentType, body };
      if (body !== null && body.length > bodyLimitOf(c.path)) return { ...exchange, ...(await sendOverLimit(warden.url, method, c.path, headers, body)) };
      const res = await pool.request({ path: c.path, method: method as 'POST', headers, ...(body === null ? {} : { body }) });
      return { ...exchange, status: res.statusCode, headers: res.headers, responseText: await res.body.text() };
    },
    async stop() {
      await pool.close();
      await warden.stop();
      await receiver.close();
    },
  };
}

/**
 * Replaces startWarden's collector of the whole output (which keeps every line of thousands of
 * requests) with one that keeps only the lines at level warn (40) and above, and at most
 * MAX_PROBLEM_LINES of them.
 */
function keepProblemLines(warden: RunningWarden): string[] {
  const lines: string[] = [];
  let partial = '';
  const onData = (chunk: Buffer) => {
    const text = partial + chunk.toString();
    const complete = text.split('\n');
    partial = complete.pop() ?? '';
    for (const line of complete) {
      if (/"level":(4|5|6)0/.test(line) && lines.length < MAX_PROBLEM_LINES) lines.push(line);
    }
  };
  for (const stream of [warden.process.stdout, warden.process.stderr]) {
    stream?.removeAllListeners('data');
    stream?.on('data', onData);
  }
  return lines;
}

const MAX_PROBLEM_LINES = 10_000;

export function renderBody(spec: BodySpec, token: string): Buffer | null {
  switch (spec.kind) {
    case 'json':
      return renderJson(spec.value, token);
    case 'truncated': {
      const full = renderJson(spec.value, token);
      return full.subarray(0, Math.floor(full.length * spec.keep));
    }
    case 'framed':
      return Buffer.concat([Buffer.from(spec.before), renderJson(spec.value, token), Buffer.from(spec.after)]);
    case 'text':
      return Buffer.from(spec.text);
    case 'bytes':
      return Buffer.from(spec.bytes);
    case 'none':
      return null;
  }
}
