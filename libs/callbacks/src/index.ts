export { CallbacksModule, type CallbacksOptions } from './callbacks.module.js';
export { ACTION_DELIVERIES, type ActionDeliveries, DELIVERY_REACTOR } from './delivery/action-deliveries.port.js';
export * from './contracts.js';
export { RotateSigningKeyCommand, type RotatedSigningKey } from './commands/rotate-signing-key/rotate-signing-key.command.js';
export { RetireSigningKeyCommand } from './commands/retire-signing-key/retire-signing-key.command.js';
export { RedeliverCallbackCommand, type RedeliveryReport, type RedeliverySelection } from './commands/redeliver-callback/redeliver-callback.command.js';
export {
  SendAppealCallbackCommand,
  type AppealCallbackRequested,
  type AppealDecisionToSend,
} from './commands/send-appeal-callback/send-appeal-callback.command.js';
export { GetSigningKeysQuery, type SigningJwk } from './queries/get-signing-keys/get-signing-keys.query.js';
export { ListSigningKeysQuery, type SigningKeySummary } from './queries/list-signing-keys/list-signing-keys.query.js';
export { ListDeliveriesQuery, type DeliveryPage, type DeliveryView } from './queries/list-deliveries/list-deliveries.query.js';
export { ListItemDeliveriesQuery, type ItemDeliveryView } from './queries/list-item-deliveries/list-item-deliveries.query.js';
export { GetDeliveriesQuery } from './queries/get-deliveries/get-deliveries.query.js';
export { SignWithOrganizationKeyQuery, type OrganizationSignature } from './queries/sign-with-organization-key/sign-with-organization-key.query.js';
