import { streamName } from '#warden/kernel';

/** One stream per customer appeal id: the id is the idempotency key of POST /api/v1/report/appeal. */
export const appealStream = (orgId: string, appealId: string) => streamName('appeal', orgId, appealId);

/** The personal-data subject of the appellant (the same form as a reporter's: `typeId:id`). */
export const appellantSubject = (user: { typeId: string; id: string }) => `${user.typeId}:${user.id}`;
