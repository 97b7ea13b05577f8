import { type BeforeApplicationShutdown, Inject, Injectable, Logger } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { Counter } from 'prom-client';
import { GetCatalogSettingsQuery } from '#warden/catalog';
import { SubmitItemsCommand } from '#warden/ingestion';
import { DomainError, errorBodyOf, forbidden, invalidInput, partTooLarge, payloadTooLarge } from '#warden/kernel';
import { findJsonBodyProblem, jsonBodyLimitsOf, Metrics, WARDEN_CONFIG, type WardenConfig } from '#warden/platform';
import { ProjectionHost } from '#warden/storage';
import { checkSameOrganization, readItemSubmissionEvent, subjectOrganization } from '../domain/item-submission-event.js';
import { type Disposition, INBOUND_TRANSPORT, type InboundMessage, type InboundTransport } from '../transport/inbound-transport.port.js';

/** Refusals that no redelivery can change: the message goes to the dead-letter subject. */
const DEAD_LETTER_STATUSES = new Set([400, 403, 413]);
const MAX_RETRY_DELAY_MS = 60_000;
const UTF8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Turns ITEM_SUBMISSION_EVENT messages into ingestion's SubmitItemsCommand, the one the HTTP
 * route sends (same validation, same limits, same errors), and says how each is settled:
 * acknowledged once its items are durable in the log (as a 202 is answered), dead-lettered with
 * the error body (docs/api.md, "Errors") when it can never be accepted, handed back for later when the log failed.
 * A message's items get ids derived from its organization and event id, so a redelivery (or a
 * second message with the same event id) records nothing twice.
 */
@Injectable()
export class ItemSubmissionConsumer implements BeforeApplicationShutdown {
  private readonly logger = new Logger('inbound-topic');
  private readonly messages: Counter<'outcome'>;
  private readonly items: Counter;
  private started = false;

  constructor(
    @Inject(INBOUND_TRANSPORT) private readonly transport: InboundTransport,
    private readonly commands: CommandBus,
    private readonly queries: QueryBus,
    @Inject(ProjectionHost) private readonly projections: ProjectionHost,
    @Inject(WARDEN_CONFIG) private readonly config: WardenConfig,
    metrics: Metrics,
  ) {
    this.messages = new Counter({
      name: 'warden_inbound_messages_total',
      help: 'Inbound topic messages handled, by outcome (recorded, dead-lettered, retried)',
      labelNames: ['outcome'] as const,
      registers: [metrics.registry],
    });
    this.items = new Counter({ name: 'warden_inbound_items_total', help: 'Items recorded from the inbound topic', registers: [metrics.registry] });
  }

  /** Called by the server once the application is initialised (the command handlers are registered). */
  async start(): Promise<void> {
    this.started = true;
    await this.transport.start((message) => this.handle(message));
    const topic = this.config.inboundTopic!;
    this.logger.log({ msg: 'inbound topic started', subjects: `${topic.subjectPrefix}.*.items`, stream: topic.stream, consumer: topic.consumer });
  }

  async beforeApplicationShutdown(): Promise<void> {
    if (this.started) await this.transport.stop();
  }

  async handle(message: InboundMessage): Promise<Disposition> {
    const topic = this.config.inboundTopic!;
    const subjectOrgId = subjectOrganization(message.subject, topic.subjectPrefix);
    let eventId: string | undefined;
    try {
      if (subjectOrgId === undefined) {
        throw invalidInput({ title: 'Invalid subject', detail: `expected ${topic.subjectPrefix}.<orgId>.items, got ${message.subject}` });
      }
      const event = readItemSubmissionEvent(this.parse(message.data));
      eventId = event.eventId;
      checkSameOrganization(subjectOrgId, event);
      await this.checkEnabled(event.orgId, message.subject);
      const accepted = await this.commands.execute(
        new SubmitItemsCommand(
          event.items,
          { orgId: event.orgId, correlationId: message.id, actor: `topic:${message.subject}` },
          { source: 'topic', pointer: '/items', submissionId: `${event.orgId}:${event.eventId}` },
        ),
      );
      this.messages.inc({ outcome: 'recorded' });
      this.items.inc(accepted.length);
      return { outcome: 'ack' };
    } catch (error) {
      if (error instanceof DomainError && DEAD_LETTER_STATUSES.has(error.status)) {
        this.messages.inc({ outcome: 'dead-lettered' });
        return { outcome: 'dead-letter', orgId: subjectOrgId, body: errorBodyOf(error, message.id), ...(eventId !== undefined ? { eventId } : {}) };
      }
      this.messages.inc({ outcome: 'retried' });
      const delayMs = Math.min(MAX_RETRY_DELAY_MS, 1000 * 2 ** Math.min(message.deliveryCount - 1, 6));
      this.logger.warn({ msg: 'inbound message not recorded; it comes again', message: message.id, delayMs, error: String(error) });
      return { outcome: 'retry', delayMs };
    }
  }

  /**
   * The organization takes items from the topic only when its configuration says so
   * (`inboundTopic: { enabled: true }`, docs/configuration-as-code.md): otherwise the message is
   * refused (403, dead-lettered). A dead letter is final, so a setting that reads as off is read
   * again once the catalog has caught up with the log: an apply moments ago may not be projected.
   */
  private async checkEnabled(orgId: string, subject: string): Promise<void> {
    const enabled = async () => (await this.queries.execute(new GetCatalogSettingsQuery(orgId, 'inboundTopic')))?.enabled === true;
    if (await enabled()) return;
    await this.projections.catchUp('catalog');
    if (await enabled()) return;
    throw forbidden(
      `the inbound topic is off for organization ${orgId}: nothing is taken from ${subject} until its configuration file says inboundTopic: { enabled: true } and is applied`,
    );
  }

  /** The message as a JSON value, under the limits of a request body (docs/api.md, "Request limits"). */
  private parse(data: Uint8Array): unknown {
    if (data.byteLength > this.config.bodyLimitBytes) throw payloadTooLarge(this.config.bodyLimitBytes);
    let text: string;
    try {
      text = UTF8.decode(data);
    } catch {
      throw invalidInput({ title: 'Malformed JSON', detail: 'The message is not well-formed UTF-8', pointer: '' });
    }
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      throw invalidInput({ title: 'Malformed JSON', detail: 'The message is not valid JSON', pointer: '' });
    }
    const problem = findJsonBodyProblem(value, jsonBodyLimitsOf(this.config));
    if (problem) {
      const detail = { detail: problem.detail, pointer: problem.pointer };
      throw problem.kind === 'too-large' ? partTooLarge({ title: 'Payload too large', ...detail }) : invalidInput({ title: 'Invalid request', ...detail });
    }
    return value;
  }
}
