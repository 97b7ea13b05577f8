export { InboundModule } from './inbound.module.js';
export { ItemSubmissionConsumer } from './consume/item-submission-consumer.js';
export * from './contracts.js';
export { INBOUND_TRANSPORT, type Disposition, type InboundHandler, type InboundMessage, type InboundTransport } from './transport/inbound-transport.port.js';
