import { AckPolicy, DeliverPolicy, jetstream, jetstreamManager, type JetStreamManager, RetentionPolicy, StorageType } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { everyMessageSettled, type NatsBroker, startNatsBroker } from '../../../../../test/support/nats-broker.js';
import { waitFor } from '../../../../../test/support/wait-for.js';
import type { Disposition, InboundMessage } from '../inbound-transport.port.js';
import { NatsInboundTransport } from './nats-inbound-transport.js';

const STREAM = 'WARDEN_ITEMS';
const CONSUMER = 'warden-items';

/**
 * The NATS adapter against a real `nats-server -js` (Debian's, as the e2e suite's): one durable
 * consumer per organization's subject, so that an organization's backlog never stands before
 * another organization's message (docs/inbound-topic.md, "Delivery"), and the move from the one
 * shared consumer of earlier versions.
 */
describe('the NATS inbound transport, fair across organizations', () => {
  let broker: NatsBroker;
  let connection: NatsConnection;
  let manager: JetStreamManager;
  let transport: NatsInboundTransport | undefined;
  let warnings: string[] = [];

  beforeEach(async () => {
    warnings = [];
    broker = await startNatsBroker([]);
    const client = await broker.client(broker.warden);
    connection = client.connection;
    manager = await jetstreamManager(connection);
  });
  afterEach(async () => {
    await transport?.stop();
    transport = undefined;
    await connection?.close();
    await broker?.stop();
  });

  const start = async (batch: number, handle: (message: InboundMessage) => Promise<Disposition>) => {
    transport = new NatsInboundTransport({
      servers: [broker.url],
      credentials: { kind: 'password', user: broker.warden.user, password: broker.warden.password },
      subjectPrefix: 'warden',
      stream: STREAM,
      consumer: CONSUMER,
      batch,
      ackWaitMs: 30_000,
      log: { info: () => undefined, warn: (message) => warnings.push(message) },
    });
    await transport.start(handle);
  };
  /** Published through JetStream: stored in the stream once this resolves. */
  const publish = (subject: string, text: string) => jetstream(connection).publish(subject, text);

  /**
   * Starts the transport with `batch` places and a handler that holds the big organization's
   * messages until `open()`, counting them in hand; every other message is acknowledged at once.
   */
  const startHoldingBig = async (batch: number) => {
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    const held = { handled: [] as string[], inHand: 0, mostInHand: 0, open: () => open() };
    await start(batch, async (message) => {
      if (message.subject === 'warden.big.items') {
        held.mostInHand = Math.max(held.mostInHand, ++held.inHand);
        await gate;
        held.inHand--;
      }
      held.handled.push(message.subject);
      return { outcome: 'ack' };
    });
    await waitFor(async () => (await manager.streams.info(STREAM).catch(() => undefined)) !== undefined, 'the stream made by the transport');
    return held;
  };

  it("hands an organization's message on while another organization's backlog holds every place it may take", async () => {
    const held = await startHoldingBig(4);
    // With one consumer for every subject, the small organization's message came after these 50:
    // with 4 places and every one held, never.
    for (let i = 0; i < 50; i++) await publish('warden.big.items', `big ${i}`);
    await waitFor(() => held.inHand === 3, "the big organization's places taken (all of 4 but the one FairSlots keeps for another organization)");
    await publish('warden.small.items', 'small');
    await publish('warden.Not-An-Org.items', 'stray');

    await waitFor(() => held.handled.includes('warden.small.items') && held.handled.includes('warden.Not-An-Org.items'), 'the other subjects handled');
    expect(held.handled.filter((s) => s === 'warden.big.items')).toHaveLength(0);
    expect(held.mostInHand).toBe(3);

    held.open();
    await waitFor(() => everyMessageSettled(manager), 'every message acknowledged');
    expect(held.handled.filter((s) => s === 'warden.big.items')).toHaveLength(50);
    const consumers: string[] = [];
    for await (const info of manager.consumers.list(STREAM)) consumers.push(info.name);
    expect(consumers).toHaveLength(3);
    expect(consumers).toContain('warden-items-big');
    expect(consumers).toContain('warden-items-small');
    // A subject that names no organization id gets a consumer of its own, named by a digest.
    expect(consumers.filter((n) => /^warden-items--[0-9a-f]{32}$/.test(n))).toHaveLength(1);
    expect(warnings).toEqual([]);
  });

  it("keeps an organization's large messages in hand to 4 MiB together, while another organization's come in", async () => {
    // 16 places: the count would let the big organization take 14.
    const held = await startHoldingBig(16);
    // 900 KiB each, under the broker's 1 MiB max_payload: four fit in 4 MiB, a fifth does not.
    const large = 'x'.repeat(900 * 1024);
    for (let i = 0; i < 8; i++) await publish('warden.big.items', large);
    await waitFor(() => held.inHand === 4, 'four large messages in hand');
    for (let i = 0; i < 3; i++) await publish('warden.small.items', `small ${i}`);
    await waitFor(() => held.handled.filter((s) => s === 'warden.small.items').length === 3, "the other organization's messages handled");
    expect(held.mostInHand).toBe(4);

    held.open();
    await waitFor(() => everyMessageSettled(manager), 'every message acknowledged');
    expect(held.handled.filter((s) => s === 'warden.big.items')).toHaveLength(8);
    expect(held.mostInHand).toBe(4);
  });

  it('makes a deleted consumer again and goes on with its subject', async () => {
    const handled: string[] = [];
    await start(4, async (message) => {
      handled.push(message.id);
      return { outcome: 'ack' };
    });
    await waitFor(async () => (await manager.streams.info(STREAM).catch(() => undefined)) !== undefined, 'the stream made by the transport');
    await publish('warden.acme.items', 'first');
    await waitFor(() => everyMessageSettled(manager), 'the first message acknowledged');
    // An operator deletes it (or the broker lost its store): the consume would wait for it for ever.
    await manager.consumers.delete(STREAM, 'warden-items-acme');
    await publish('warden.acme.items', 'second');
    await waitFor(() => handled.includes(`${STREAM}:2`), 'the message published after the deletion handled');
    await waitFor(() => everyMessageSettled(manager), 'every message acknowledged by the consumer made again');
    // Made again from the subject's first message: the first comes once more (the event id records nothing twice).
    expect(handled.filter((id) => id === `${STREAM}:1`).length).toBeGreaterThanOrEqual(1);
  });

  it('starts where the shared consumer of an earlier version stopped, for the organizations it served and for a new one', async () => {
    await manager.streams.add({ name: STREAM, subjects: ['warden.*.items'], retention: RetentionPolicy.Limits, storage: StorageType.File });
    await manager.consumers.add(STREAM, {
      durable_name: CONSUMER,
      ack_policy: AckPolicy.Explicit,
      deliver_policy: DeliverPolicy.All,
      filter_subject: 'warden.*.items',
    });
    for (let i = 1; i <= 6; i++) await publish(i % 2 === 0 ? 'warden.acme.items' : 'warden.globex.items', `message ${i}`);
    // The earlier version settled the first four, in order: its acknowledgement floor is at 4.
    const legacy = await jetstream(connection).consumers.get(STREAM, CONSUMER);
    const batch = await legacy.fetch({ max_messages: 4, expires: 2_000 });
    for await (const message of batch) message.ack();
    await waitFor(async () => (await manager.consumers.info(STREAM, CONSUMER)).ack_floor.stream_seq === 4, 'the shared consumer at 4');

    const handled: string[] = [];
    await start(10, async (message) => {
      handled.push(message.id);
      return { outcome: 'ack' };
    });
    await waitFor(() => everyMessageSettled(manager), 'the messages after the floor acknowledged');
    expect(handled.sort()).toEqual([`${STREAM}:5`, `${STREAM}:6`]);

    await publish('warden.newco.items', 'message 7');
    await waitFor(() => everyMessageSettled(manager), "the new organization's message acknowledged");
    expect(handled.sort()).toEqual([`${STREAM}:5`, `${STREAM}:6`, `${STREAM}:7`]);
  });
});
