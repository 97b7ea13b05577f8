import { type DynamicModule, Logger, Module } from '@nestjs/common';
import { IngestionModule } from '#warden/ingestion';
import type { InboundTopicConfig } from '#warden/platform';
import { ItemSubmissionConsumer } from './consume/item-submission-consumer.js';
import { INBOUND_TRANSPORT, type InboundTransport } from './transport/inbound-transport.port.js';

/**
 * Items from the event-streaming topic ITEM_SUBMISSION_EVENT (docs/inbound-topic.md, "The envelope",
 * docs/inbound-topic.md), composed in worker processes when a broker is configured. Ingestion is
 * used only through its index (SubmitItemsCommand); the broker only through the transport port.
 */
@Module({})
export class InboundModule {
  static register(topic: InboundTopicConfig): DynamicModule {
    return {
      module: InboundModule,
      imports: [IngestionModule],
      providers: [
        {
          provide: INBOUND_TRANSPORT,
          // Loaded here, not imported above: a process without a broker never loads the NATS client.
          useFactory: async (): Promise<InboundTransport> => {
            const [{ NatsInboundTransport }, { readNatsCredentials }] = await Promise.all([
              import('./transport/nats/nats-inbound-transport.js'),
              import('./transport/nats/nats-credentials.js'),
            ]);
            const logger = new Logger('inbound-topic');
            return new NatsInboundTransport({
              ...topic,
              credentials: topic.credentialsFile === undefined ? undefined : readNatsCredentials(topic.credentialsFile),
              log: { info: (m) => logger.log(m), warn: (m) => logger.warn(m) },
            });
          },
        },
        ItemSubmissionConsumer,
      ],
      exports: [ItemSubmissionConsumer],
    };
  }
}
