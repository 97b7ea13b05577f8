import { streamName } from '#warden/kernel';

/**
 * A callback delivery's stream, as the callbacks module names it (`callback_delivery`), which
 * does not export it: Investigate opens it by the delivery id an action names. Reports and review
 * jobs are opened through review's contracts.
 */
export const callbackDeliveryStream = (orgId: string, deliveryId: string) => streamName('callback_delivery', orgId, deliveryId);
