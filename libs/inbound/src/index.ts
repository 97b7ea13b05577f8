export { InboundModule } from './inbound.module.js';
export { ItemSubmissionConsumer } from './consume/item-submission-consumer.js';
export { ENVELOPE_VERSIONS, ITEM_SUBMISSION_EVENT, readItemSubmissionEvent, type ItemSubmissionEvent } from './domain/item-submission-event.js';
export { INBOUND_TRANSPORT, type Disposition, type InboundHandler, type InboundMessage, type InboundTransport } from './transport/inbound-transport.port.js';
