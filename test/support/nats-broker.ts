import { type ChildProcess, spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs';
import { connect as netConnect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jetstream, type JetStreamClient, jetstreamManager, type JetStreamManager } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { subjectConsumer } from '../../libs/inbound/src/transport/nats/nats-inbound-transport.js';
import { freePort } from './free-port.js';
import { waitFor } from './wait-for.js';

/** Debian's broker (test/support/ensure-nats-server.mjs installs it; the tests never skip without it). */
const NATS_SERVER = process.env['WARDEN_NATS_SERVER'] ?? '/usr/sbin/nats-server';

export interface BrokerUser {
  readonly user: string;
  readonly password: string;
}

/**
 * A real `nats-server -js` on a free loopback port with a temporary store: Warden's user may do
 * anything; each organization's user may publish on its own subject only and read its dead
 * letters (docs/inbound-topic.md, "Per-organization credentials").
 */
export interface NatsBroker {
  readonly url: string;
  readonly warden: BrokerUser;
  /** A file holding Warden's credentials (mode 0600), for WARDEN_NATS_CREDENTIALS_FILE. */
  readonly wardenCredentialsFile: string;
  user(orgId: string): BrokerUser;
  /** Connects as `who` (an organization's user, or Warden's). */
  client(who: BrokerUser): Promise<{ connection: NatsConnection; js: JetStreamClient }>;
  /** Every message of a stream, read as Warden's user. */
  read(stream: string): Promise<Array<{ subject: string; data: string; headers: Record<string, string> }>>;
  /** Stops the broker (SIGTERM: it syncs its store) and starts it again on the same port and store. */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

export async function startNatsBroker(orgIds: readonly string[]): Promise<NatsBroker> {
  const dir = mkdtempSync(join(tmpdir(), 'warden-nats-'));
  const port = await freePort();
  const warden = { user: 'warden', password: 'warden-secret-1' };
  const users = new Map(orgIds.map((orgId) => [orgId, { user: orgId, password: `${orgId}-secret-1` }]));
  const conf = join(dir, 'nats.conf');
  writeFileSync(
    conf,
    [
      `listen: "127.0.0.1:${port}"`,
      `jetstream { store_dir: "${join(dir, 'store')}" }`,
      'authorization {',
      '  users = [',
      `    { user: "${warden.user}", password: "${warden.password}" }`,
      ...[...users].map(
        ([orgId, u]) =>
          `    { user: "${u.user}", password: "${u.password}", permissions: { publish: ["warden.${orgId}.items"], subscribe: ["_INBOX.>", "warden.${orgId}.items.dead-letter"] } }`,
      ),
      '  ]',
      '}',
    ].join('\n'),
  );
  const wardenCredentialsFile = join(dir, 'warden.credentials');
  writeFileSync(wardenCredentialsFile, `${warden.user}:${warden.password}\n`);
  chmodSync(wardenCredentialsFile, 0o600);

  let server: ChildProcess = await launch(conf, port);
  const url = `nats://127.0.0.1:${port}`;
  const client = async (who: BrokerUser) => {
    const connection = await connect({ servers: url, user: who.user, pass: who.password, maxReconnectAttempts: -1, reconnectTimeWait: 250 });
    return { connection, js: jetstream(connection) };
  };
  return {
    url,
    warden,
    wardenCredentialsFile,
    user: (orgId) => users.get(orgId)!,
    client,
    async read(stream) {
      const { connection } = await client(warden);
      try {
        const manager = await jetstreamManager(connection);
        const { state } = await manager.streams.info(stream);
        const out: Array<{ subject: string; data: string; headers: Record<string, string> }> = [];
        for (let seq = state.first_seq; seq <= state.last_seq && state.messages > 0; seq++) {
          const m = await manager.streams.getMessage(stream, { seq }).catch(() => null);
          if (m === null) continue;
          const headers: Record<string, string> = {};
          for (const [k, v] of m.header ?? []) headers[k] = v.join(',');
          out.push({ subject: m.subject, data: new TextDecoder().decode(m.data), headers });
        }
        return out;
      } finally {
        await connection.close();
      }
    },
    async restart() {
      await stopProcess(server, 'SIGTERM');
      server = await launch(conf, port);
    },
    async stop() {
      await stopProcess(server, 'SIGTERM');
    },
  };
}

async function launch(conf: string, port: number): Promise<ChildProcess> {
  const child = spawn(NATS_SERVER, ['-js', '-c', conf], { stdio: ['ignore', 'ignore', 'pipe'] });
  let output = '';
  child.stderr!.on('data', (c: Buffer) => (output += c.toString()));
  await waitFor(() => {
    if (child.exitCode !== null) throw new Error(`nats-server exited with ${child.exitCode}:\n${output}`);
    return new Promise<boolean>((resolve) => {
      const socket = netConnect(port, '127.0.0.1', () => {
        socket.destroy();
        resolve(true);
      });
      socket.on('error', () => resolve(false));
    });
  }, 'nats-server to listen');
  return child;
}

function stopProcess(child: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill(signal);
  });
}

/**
 * Whether Warden has settled every message of the items stream: each subject's durable consumer
 * (docs/inbound-topic.md, "Delivery") exists, has nothing pending, and its acknowledgement floor is
 * at the subject's last message (a message handed back for a retry counts in neither num_pending
 * nor num_ack_pending, so the floor is what says it is done).
 */
export async function everyMessageSettled(manager: JetStreamManager, stream = 'WARDEN_ITEMS', consumer = 'warden-items', prefix = 'warden'): Promise<boolean> {
  const { state } = await manager.streams.info(stream, { subjects_filter: `${prefix}.*.items` });
  for (const subject of Object.keys(state.subjects ?? {})) {
    const last = await manager.streams.getMessage(stream, { last_by_subj: subject });
    const info = await manager.consumers.info(stream, subjectConsumer(consumer, prefix, subject)).catch(() => undefined);
    if (last === null || info === undefined || info.num_pending > 0 || info.ack_floor.stream_seq < last.seq) return false;
  }
  return true;
}
