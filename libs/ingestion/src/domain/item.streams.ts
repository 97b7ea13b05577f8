import { streamName } from '#warden/kernel';

/** Every version of an item is an ItemSubmitted in its stream; the revision is the version. */
export const itemStream = (orgId: string, typeId: string, itemId: string) => streamName('item', orgId, typeId, itemId);

/** One stream per user report (its id is assigned by the service). */
export const reportStream = (orgId: string, reportId: string) => streamName('report', orgId, reportId);
