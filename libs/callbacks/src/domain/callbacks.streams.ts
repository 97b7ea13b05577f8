import { deterministicId, streamName } from '#warden/kernel';

/** One stream per delivery: its whole history, request to outcome, across redeliveries. */
export const deliveryStream = (orgId: string, deliveryId: string) => streamName('callback_delivery', orgId, deliveryId);

/** An organization's callback signing keys. */
export const signingKeyStream = (orgId: string) => streamName('signing_keys', orgId);

/** One decision per appeal: deciding (or sending) it again finds the same delivery. */
export const appealDeliveryId = (orgId: string, appealId: string) => deterministicId('appeal-callback', orgId, appealId);
