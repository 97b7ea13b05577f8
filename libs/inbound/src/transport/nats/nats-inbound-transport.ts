import {
  AckPolicy,
  type ConsumerMessages,
  DeliverPolicy,
  type JetStreamClient,
  type JetStreamManager,
  jetstream,
  jetstreamManager,
  type JsMsg,
  RetentionPolicy,
  StorageType,
} from '@nats-io/jetstream';
import {
  type Authenticator,
  connect,
  credsAuthenticator,
  headers,
  nanos,
  type NatsConnection,
  nkeyAuthenticator,
  usernamePasswordAuthenticator,
} from '@nats-io/transport-node';
import { deadLetterPayload } from '../dead-letter-payload.js';
import type { Disposition, InboundHandler, InboundMessage, InboundTransport } from '../inbound-transport.port.js';
import type { NatsCredentials } from './nats-credentials.js';

export interface NatsInboundOptions {
  readonly servers: readonly string[];
  readonly credentials: NatsCredentials | undefined;
  readonly subjectPrefix: string;
  readonly stream: string;
  readonly consumer: string;
  readonly batch: number;
  readonly ackWaitMs: number;
  readonly log: { info(message: string): void; warn(message: string): void };
}

const DAY_MS = 86_400_000;
/** How long the stream keeps messages (acknowledged ones too: a dead letter names its original by sequence). */
const ITEMS_MAX_AGE_MS = 7 * DAY_MS;
const DEAD_LETTER_MAX_AGE_MS = 14 * DAY_MS;
/** A publisher that sets Nats-Msg-Id to the event id gets duplicates within this window dropped by the broker. */
const DUPLICATE_WINDOW_MS = 2 * 60_000;
const RECONNECT_WAIT_MS = 500;
/** How long a dead letter that could not be published waits before the message comes again. */
const DEAD_LETTER_RETRY_MS = 5_000;
/** NATS's default max_payload, should the server not have said its own. */
const DEFAULT_MAX_PAYLOAD = 1024 * 1024;
/** What a dead letter leaves of max_payload for its headers (subject, message and event ids). */
const HEADER_ROOM_BYTES = 4096;

/** The broker's subjects for an organization (docs/inbound-topic.md, "Subjects"). */
export const itemsSubject = (prefix: string, orgId: string) => `${prefix}.${orgId}.items`;
export const deadLetterSubject = (prefix: string, orgId: string | undefined) => `${prefix}.${orgId ?? '_unknown'}.items.dead-letter`;

/**
 * The inbound topic on NATS JetStream: a durable pull consumer shared by every worker, fetched
 * in bounded batches (at most `batch` messages in hand), each message acknowledged, sent to the
 * dead-letter stream or handed back with a delay as the handler says. The stream, its dead-letter
 * stream and the consumer are created when missing (an operator may create them beforehand with
 * other limits). The connection reconnects without end; a consume that ends is started again.
 */
export class NatsInboundTransport implements InboundTransport {
  private connection: NatsConnection | undefined;
  private messages: ConsumerMessages | undefined;
  private running: Promise<void> | undefined;
  private stopping = false;
  private inHand = 0;
  private readonly slotWaiters: Array<() => void> = [];
  private readonly settled: Array<() => void> = [];

  constructor(private readonly options: NatsInboundOptions) {}

  async start(handle: InboundHandler): Promise<void> {
    this.running = this.run(handle);
  }

  async stop(): Promise<void> {
    this.stopping = true;
    this.messages?.stop();
    this.slotWaiters.splice(0).forEach((wake) => wake());
    while (this.inHand > 0) await new Promise<void>((resolve) => this.settled.push(resolve));
    // Drain flushes the acknowledgements just sent before closing.
    await this.connection?.drain().catch(() => undefined);
    await this.running;
  }

  private async run(handle: InboundHandler): Promise<void> {
    let failing = false;
    while (!this.stopping) {
      try {
        const connection = (this.connection ??= await this.connect());
        const manager = await jetstreamManager(connection);
        await this.ensureStreamsAndConsumer(manager);
        const client = jetstream(connection);
        const consumer = await client.consumers.get(this.options.stream, this.options.consumer);
        if (this.stopping) break;
        this.messages = await consumer.consume({ max_messages: this.options.batch });
        if (failing) this.options.log.info('Inbound topic: consuming again');
        failing = false;
        for await (const message of this.messages) {
          await this.slot();
          if (this.stopping) {
            // Not handled: handed back at once, for another worker (or this one, restarted).
            message.nak();
            this.release();
            break;
          }
          void this.settle(client, message, handle).finally(() => this.release());
        }
      } catch (error) {
        if (!failing && !this.stopping) this.options.log.warn(`Inbound topic: ${describe(error)}; retrying`);
        failing = true;
      }
      if (!this.stopping) await sleep(1000);
    }
  }

  private async connect(): Promise<NatsConnection> {
    const connection = await connect({
      servers: [...this.options.servers],
      name: 'warden-inbound',
      maxReconnectAttempts: -1,
      reconnectTimeWait: RECONNECT_WAIT_MS,
      ...authentication(this.options.credentials),
    });
    void (async () => {
      for await (const status of connection.status()) {
        if (status.type === 'disconnect') this.options.log.warn('Inbound topic: disconnected from the broker; reconnecting');
        if (status.type === 'reconnect') this.options.log.info('Inbound topic: reconnected to the broker');
      }
    })();
    return connection;
  }

  private async ensureStreamsAndConsumer(manager: JetStreamManager): Promise<void> {
    const { subjectPrefix: prefix, stream } = this.options;
    await ensureStream(manager, stream, {
      subjects: [itemsSubject(prefix, '*')],
      max_age: nanos(ITEMS_MAX_AGE_MS),
      duplicate_window: nanos(DUPLICATE_WINDOW_MS),
    });
    await ensureStream(manager, `${stream}_DEAD_LETTER`, { subjects: [deadLetterSubject(prefix, '*')], max_age: nanos(DEAD_LETTER_MAX_AGE_MS) });
    try {
      await manager.consumers.info(stream, this.options.consumer);
    } catch {
      // Adding a consumer with the configuration it already has is a no-op: several workers may race here.
      await manager.consumers.add(stream, {
        durable_name: this.options.consumer,
        ack_policy: AckPolicy.Explicit,
        deliver_policy: DeliverPolicy.All,
        ack_wait: nanos(this.options.ackWaitMs),
        max_deliver: -1,
        max_ack_pending: 10_000,
        filter_subject: itemsSubject(prefix, '*'),
      });
    }
  }

  private async settle(client: JetStreamClient, message: JsMsg, handle: InboundHandler): Promise<void> {
    const inbound: InboundMessage = {
      subject: message.subject,
      data: message.data,
      id: `${message.info.stream}:${message.seq}`,
      deliveryCount: message.info.deliveryCount,
    };
    let disposition: Disposition;
    // A message of many items may take longer than the ack wait under load: telling the broker
    // it is in hand keeps it from being delivered to another worker meanwhile.
    const inHand = setInterval(() => message.working(), Math.max(500, this.options.ackWaitMs / 3));
    try {
      disposition = await handle(inbound);
    } catch {
      disposition = { outcome: 'retry', delayMs: DEAD_LETTER_RETRY_MS };
    } finally {
      clearInterval(inHand);
    }
    if (disposition.outcome === 'ack') message.ack();
    else if (disposition.outcome === 'retry') message.nak(disposition.delayMs);
    else {
      const h = headers();
      h.set('Warden-Subject', inbound.subject);
      h.set('Warden-Message', inbound.id);
      if (disposition.eventId !== undefined) h.set('Warden-Event-Id', disposition.eventId);
      try {
        // The dead letter's own id is the original's: a redelivered original is dead-lettered once.
        const payload = deadLetterPayload(disposition.body, (this.connection?.info?.max_payload ?? DEFAULT_MAX_PAYLOAD) - HEADER_ROOM_BYTES);
        await client.publish(deadLetterSubject(this.options.subjectPrefix, disposition.orgId), payload, {
          msgID: `dead-letter:${inbound.id}`,
          headers: h,
        });
        message.ack();
      } catch (error) {
        this.options.log.warn(`Inbound topic: could not publish the dead letter of ${inbound.id} (${describe(error)}); it comes again`);
        message.nak(DEAD_LETTER_RETRY_MS);
      }
    }
  }

  /** Waits for one of `batch` places: the consume loop reads no further while all are taken. */
  private async slot(): Promise<void> {
    while (this.inHand >= this.options.batch && !this.stopping) await new Promise<void>((resolve) => this.slotWaiters.push(resolve));
    this.inHand++;
  }

  private release(): void {
    this.inHand--;
    this.slotWaiters.shift()?.();
    if (this.inHand === 0) this.settled.splice(0).forEach((resolve) => resolve());
  }
}

async function ensureStream(
  manager: JetStreamManager,
  name: string,
  config: { subjects: string[]; max_age: number; duplicate_window?: number },
): Promise<void> {
  try {
    await manager.streams.info(name);
  } catch {
    try {
      await manager.streams.add({ name, retention: RetentionPolicy.Limits, storage: StorageType.File, ...config });
    } catch (error) {
      // Another worker created it meanwhile; anything else fails the info as well.
      await manager.streams.info(name).catch(() => {
        throw error;
      });
    }
  }
}

function authentication(credentials: NatsCredentials | undefined): { authenticator?: Authenticator } {
  if (credentials === undefined) return {};
  if (credentials.kind === 'creds') return { authenticator: credsAuthenticator(credentials.creds) };
  if (credentials.kind === 'nkey') return { authenticator: nkeyAuthenticator(credentials.seed) };
  return { authenticator: usernamePasswordAuthenticator(credentials.user, credentials.password) };
}

/** An error's message without the server URLs' user info (they may carry credentials). */
function describe(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.replace(/\/\/[^@/\s]*@/g, '//…@');
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());
