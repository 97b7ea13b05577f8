import { streamName } from '#warden/kernel';

/** One stream per customer appeal id: the id is the idempotency key of POST /api/v1/report/appeal. */
export const appealStream = (orgId: string, appealId: string) => streamName('appeal', orgId, appealId);
