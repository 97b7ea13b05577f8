import { streamName } from '#warden/kernel';

/** Every version of an item is an ItemSubmitted in its stream; the revision is the version. */
export const itemStream = (orgId: string, typeId: string, itemId: string) => streamName('item', orgId, typeId, itemId);
