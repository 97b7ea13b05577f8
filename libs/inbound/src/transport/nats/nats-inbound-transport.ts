import { createHash } from 'node:crypto';
import {
  AckPolicy,
  type ConsumerMessages,
  DeliverPolicy,
  type JetStreamClient,
  type JetStreamManager,
  jetstream,
  jetstreamManager,
  JetStreamApiCodes,
  JetStreamApiError,
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
import { FairSlots, ORG_ID } from '#warden/kernel';
import { deadLetterPayload } from '../dead-letter-payload.js';
import type { Disposition, InboundHandler, InboundMessage, InboundTransport } from '../inbound-transport.port.js';
import type { NatsCredentials } from './nats-credentials.js';

export interface NatsInboundOptions {
  readonly servers: readonly string[];
  readonly credentials: NatsCredentials | undefined;
  readonly subjectPrefix: string;
  readonly stream: string;
  /** Names the durable consumers: `<consumer>-<orgId>` per organization's subject; `<consumer>` alone was the one shared consumer of earlier versions. */
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
/**
 * How often the stream's count of subjects is read, to find an organization that has just started
 * publishing: its first message waits at most about this (one small request to the broker each).
 */
const SUBJECTS_POLL_MS = 250;
/** The subjects are listed whole at least this often, even when their count has not changed (one gone, another come). */
const SUBJECTS_FULL_LIST_MS = 30_000;
/** How long a consume that failed (its consumer deleted, the broker away) waits before it starts again. */
const RESTART_MS = 1000;

/** The broker's subjects for an organization (docs/inbound-topic.md, "Subjects"). */
export const itemsSubject = (prefix: string, orgId: string) => `${prefix}.${orgId}.items`;
export const deadLetterSubject = (prefix: string, orgId: string | undefined) => `${prefix}.${orgId ?? '_unknown'}.items.dead-letter`;

/**
 * The durable consumer of one subject: `<consumer>-<orgId>` when the subject names an organization
 * id, else `<consumer>--` and a digest of the subject (an organization id never starts with `-`, so
 * the two never meet; such a subject's messages are dead-lettered, but only its own consumer reaches them).
 */
export function subjectConsumer(consumer: string, prefix: string, subject: string): string {
  const token = subject.slice(prefix.length + 1, -'.items'.length);
  if (ORG_ID.test(token)) return `${consumer}-${token}`;
  return `${consumer}--${createHash('sha256').update(subject).digest('hex').slice(0, 32)}`;
}

/**
 * The inbound topic on NATS JetStream, fair across organizations (docs/inbound-topic.md,
 * "Delivery"). One durable pull consumer per organization's subject, shared by every worker, so
 * that an organization's backlog waits behind its own messages only: with one consumer for every
 * subject, another organization's message came after the whole backlog published before it (a
 * helper's hunt, docs/benchmarks.md). The subjects are found by listing the stream's; each
 * consumer is created when missing, starting where the shared consumer of earlier versions stopped.
 * The messages in hand are `batch` at most, shared by organizations as FairSlots shares them (each
 * at most its share; an organization alone all but the eighth kept for newcomers). Each message is acknowledged, sent to the
 * dead-letter stream or handed back with a delay as the handler says. The connection reconnects
 * without end; a consume that ends is started again.
 */
export class NatsInboundTransport implements InboundTransport {
  private connection: NatsConnection | undefined;
  private running: Promise<void> | undefined;
  private stopping = false;
  private stopWatching: (() => void) | undefined;
  private readonly slots: FairSlots;
  /** The consume of each subject, running until stopped. */
  private readonly consuming = new Map<string, Promise<void>>();
  private readonly open = new Set<ConsumerMessages>();
  private readonly settling = new Set<Promise<void>>();
  private readonly budgets = new Set<BytesInHand>();

  constructor(private readonly options: NatsInboundOptions) {
    // A message's handling ends on its own (no deadline to wait out), so an organization alone may take every place.
    this.slots = new FairSlots(options.batch, { wholeWhenAlone: true });
  }

  async start(handle: InboundHandler): Promise<void> {
    this.running = this.run(handle);
  }

  async stop(): Promise<void> {
    this.stopping = true;
    this.stopWatching?.();
    for (const messages of this.open) messages.stop();
    for (const bytes of this.budgets) bytes.wake();
    await this.running;
    // A consume waiting for a slot gets one as these settle, and hands its message back.
    while (this.settling.size > 0) await Promise.all(this.settling);
    await Promise.all(this.consuming.values());
    // Drain flushes the acknowledgements just sent before closing.
    await this.connection?.drain().catch(() => undefined);
  }

  /** Connects, makes the streams, then watches the stream's subjects and consumes each new one. */
  private async run(handle: InboundHandler): Promise<void> {
    let failing = false;
    while (!this.stopping) {
      try {
        const connection = (this.connection ??= await this.connect());
        const manager = await jetstreamManager(connection);
        await this.ensureStreams(manager);
        const client = jetstream(connection);
        if (failing) this.options.log.info('Inbound topic: consuming again');
        failing = false;
        await this.watchSubjects(manager, (subject) => this.consume(manager, client, subject, handle));
      } catch (error) {
        if (!failing && !this.stopping) this.options.log.warn(`Inbound topic: ${describe(error)}; retrying`);
        failing = true;
      }
      if (!this.stopping) await sleep(RESTART_MS);
    }
  }

  /**
   * Lists the stream's subjects now and every SUBJECTS_POLL_MS, calling `found` once for each
   * subject not seen before. The list is read whole only when the stream's count of subjects
   * changed (or every SUBJECTS_FULL_LIST_MS): the count costs the same for ten organizations as for
   * ten thousand. Returns when stopped; throws when the broker cannot answer.
   */
  private async watchSubjects(manager: JetStreamManager, found: (subject: string) => void): Promise<void> {
    const filter = itemsSubject(this.options.subjectPrefix, '*');
    let count = -1;
    let listedAt = 0;
    while (!this.stopping) {
      // A broker that does not count its subjects has the list read every time.
      const { num_subjects: subjects = -1 } = (await manager.streams.info(this.options.stream)).state;
      if (subjects === -1 || subjects !== count || Date.now() - listedAt >= SUBJECTS_FULL_LIST_MS) {
        const listed = await manager.streams.info(this.options.stream, { subjects_filter: filter });
        for (const subject of Object.keys(listed.state.subjects ?? {})) if (!this.consuming.has(subject)) found(subject);
        count = subjects;
        listedAt = Date.now();
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, SUBJECTS_POLL_MS);
        this.stopWatching = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
  }

  /** Starts consuming `subject` (its consumer made when missing) until stopped, starting again whenever its consume ends. */
  private consume(manager: JetStreamManager, client: JetStreamClient, subject: string, handle: InboundHandler): void {
    const name = subjectConsumer(this.options.consumer, this.options.subjectPrefix, subject);
    const bytes = new BytesInHand(BYTES_IN_HAND_PER_SUBJECT);
    this.budgets.add(bytes);
    const consuming = (async () => {
      let failing = false;
      while (!this.stopping) {
        let messages: ConsumerMessages | undefined;
        try {
          await this.ensureConsumer(manager, subject, name);
          const consumer = await client.consumers.get(this.options.stream, name);
          if (this.stopping) break;
          messages = await consumer.consume({
            max_messages: pullBufferOf(this.options.batch),
            // A consumer deleted (by an operator, or lost with the broker's store) ends the consume,
            // which starts again here and creates it; otherwise the client waits for it for ever.
            abort_on_missing_resource: true,
          });
          this.open.add(messages);
          // Stopped while the consume was being opened: stop() could not reach it.
          if (this.stopping) messages.stop();
          if (failing) this.options.log.info(`Inbound topic: consuming ${subject} again`);
          failing = false;
          for await (const message of messages) {
            // In hand from now: a message waiting for a slot is not delivered to another worker meanwhile.
            const inHand = setInterval(() => message.working(), Math.max(500, this.options.ackWaitMs / 3));
            const size = message.data.byteLength;
            await bytes.take(size, () => this.stopping);
            const release = await this.slots.acquire(subject);
            const done = () => {
              clearInterval(inHand);
              release();
              bytes.give(size);
            };
            if (this.stopping) {
              // Not handled: handed back at once, for another worker (or this one, restarted).
              message.nak();
              done();
              break;
            }
            const settled = this.settle(client, message, handle).finally(() => {
              done();
              this.settling.delete(settled);
            });
            this.settling.add(settled);
          }
        } catch (error) {
          if (!failing && !this.stopping) this.options.log.warn(`Inbound topic: ${subject}: ${describe(error)}; retrying`);
          failing = true;
        } finally {
          if (messages !== undefined) this.open.delete(messages);
        }
        if (!this.stopping) await sleep(RESTART_MS);
      }
    })();
    this.consuming.set(subject, consuming);
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

  private async ensureStreams(manager: JetStreamManager): Promise<void> {
    const { subjectPrefix: prefix, stream } = this.options;
    await ensureStream(manager, stream, {
      subjects: [itemsSubject(prefix, '*')],
      max_age: nanos(ITEMS_MAX_AGE_MS),
      duplicate_window: nanos(DUPLICATE_WINDOW_MS),
    });
    await ensureStream(manager, `${stream}_DEAD_LETTER`, { subjects: [deadLetterSubject(prefix, '*')], max_age: nanos(DEAD_LETTER_MAX_AGE_MS) });
  }

  /**
   * The subject's consumer, created when missing: from the stream's first message, or, where the
   * shared consumer of an earlier version exists, after its acknowledgement floor (what it settled
   * is not handled again; what it settled beyond the floor is, and records nothing twice, the event id).
   */
  private async ensureConsumer(manager: JetStreamManager, subject: string, name: string): Promise<void> {
    const { stream } = this.options;
    if (await consumerExists(manager, stream, name)) return;
    const floor = await this.sharedConsumerFloor(manager);
    try {
      await manager.consumers.add(stream, {
        durable_name: name,
        ack_policy: AckPolicy.Explicit,
        ...(floor === undefined ? { deliver_policy: DeliverPolicy.All } : { deliver_policy: DeliverPolicy.StartSequence, opt_start_seq: floor + 1 }),
        ack_wait: nanos(this.options.ackWaitMs),
        max_deliver: -1,
        max_ack_pending: 10_000,
        filter_subject: subject,
      });
    } catch (error) {
      // Another worker created it meanwhile (with another start, should the floor have moved).
      if (!(await consumerExists(manager, stream, name))) throw error;
    }
  }

  /** The acknowledgement floor of the one consumer every subject shared before (the same name, filtered on every subject), if it exists. */
  private async sharedConsumerFloor(manager: JetStreamManager): Promise<number | undefined> {
    try {
      const shared = await manager.consumers.info(this.options.stream, this.options.consumer);
      // Warden made it filtered on every organization's subject; one an operator made beforehand
      // may have no filter, which reads the same subjects (the stream holds no others).
      const filter = shared.config.filter_subject;
      return filter === undefined || filter === '' || filter === itemsSubject(this.options.subjectPrefix, '*') ? shared.ack_floor.stream_seq : undefined;
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
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
    try {
      disposition = await handle(inbound);
    } catch {
      disposition = { outcome: 'retry', delayMs: DEAD_LETTER_RETRY_MS };
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
}

/**
 * What one subject's messages in hand weigh together at most (one message, whatever its size, at
 * least). The slots count messages; this keeps an organization's large ones from filling them: each
 * is parsed, checked and written on the event loop, so 88 messages of 680 KB in hand held every
 * other organization's message a second or two between its steps (a helper's hunt, docs/benchmarks.md).
 */
const BYTES_IN_HAND_PER_SUBJECT = 4 * 1024 * 1024;

/** A subject's bytes in hand, waited for in order (its consume takes one message at a time). */
class BytesInHand {
  private held = 0;
  private waiter: (() => void) | undefined;

  constructor(private readonly budget: number) {}

  /** Waits until `size` more fit (or nothing is held), or `stopped()`; then holds them. */
  async take(size: number, stopped: () => boolean): Promise<void> {
    while (this.held > 0 && this.held + size > this.budget && !stopped()) await new Promise<void>((resolve) => (this.waiter = resolve));
    this.held += size;
  }

  give(size: number): void {
    this.held -= size;
    this.wake();
  }

  wake(): void {
    const waiter = this.waiter;
    this.waiter = undefined;
    waiter?.();
  }
}

/**
 * Messages the client keeps delivered and waiting per subject (its pull buffer): a tenth of the
 * batch, at least one. Every subject has its own, so what waits in memory grows with the
 * organizations publishing at once (docs/inbound-topic.md, "Back-pressure by pulling"). Counted in
 * bytes instead (a pull of about one max_payload), 680 KB messages stopped coming after the
 * seventh: the client's refills did not resume.
 */
const pullBufferOf = (batch: number) => Math.max(1, Math.ceil(batch / 10));

async function consumerExists(manager: JetStreamManager, stream: string, name: string): Promise<boolean> {
  try {
    await manager.consumers.info(stream, name);
    return true;
  } catch (error) {
    if (isNotFound(error)) return false;
    throw error;
  }
}

function isNotFound(error: unknown): boolean {
  return error instanceof JetStreamApiError && (error.code === JetStreamApiCodes.ConsumerNotFound || error.code === JetStreamApiCodes.StreamNotFound);
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
