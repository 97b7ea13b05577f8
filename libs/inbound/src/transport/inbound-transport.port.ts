import type { ErrorBodyItem } from '#warden/kernel';

/**
 * What the inbound topic needs of a broker, so that another one (Kafka) is one more adapter and
 * ingestion never changes (docs/inbound-topic.md, "Another broker"). The adapter owns delivery:
 * durable position, bounded batches, redelivery, the dead-letter destination.
 */
export interface InboundMessage {
  /** Where it was published: `<prefix>.<orgId>.items`, the sender's organization (the broker authenticated it). */
  readonly subject: string;
  readonly data: Uint8Array;
  /** The broker's name for this message, the same on every redelivery (NATS: `<stream>:<sequence>`). */
  readonly id: string;
  /** 1 on first delivery. */
  readonly deliveryCount: number;
}

/** How a handled message is settled. */
export type Disposition =
  /** Its items are durable in the log (or it was a repeat): never deliver it again. */
  | { readonly outcome: 'ack' }
  /**
   * It can never be accepted: publish `body` (the error body of docs/api.md, "Errors") on the dead-letter
   * destination of `orgId` (undefined: the subject named no organization), then acknowledge it.
   */
  | { readonly outcome: 'dead-letter'; readonly orgId: string | undefined; readonly body: { errors: readonly ErrorBodyItem[] }; readonly eventId?: string }
  /** Not now (the log or the catalog failed): deliver it again after `delayMs`. */
  | { readonly outcome: 'retry'; readonly delayMs: number };

export type InboundHandler = (message: InboundMessage) => Promise<Disposition>;

export interface InboundTransport {
  /**
   * Starts consuming in the background: at most `concurrency` messages are handled at once and
   * no more are fetched than that (back-pressure by pulling), each settled as `handle` says. Keeps
   * reconnecting until stopped. Resolves once consuming has started or is being retried.
   */
  start(handle: InboundHandler): Promise<void>;
  /** Stops fetching, lets the messages in hand settle, disconnects. */
  stop(): Promise<void>;
}

export const INBOUND_TRANSPORT = Symbol('InboundTransport');
