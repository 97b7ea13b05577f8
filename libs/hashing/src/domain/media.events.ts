import type { DomainEvent } from '#warden/kernel';
import type { MediaResult } from '#warden/rules/contracts';

/**
 * One media URL of one item version, fetched and hashed once (or why it could not be). Generic in
 * the result, whose shape the rules module's MediaHasher port defines: the decision never looks
 * inside it, and the decider stays independent of it.
 *
 * `result` (the URL, without its query string, and the image's hashes or why there are none) is
 * the item's data as much as the URL it came from: sealed under `subject`'s key (the item's
 * subject, as its ItemSubmitted's data), so a GDPR deletion erases it, and it then reads as null.
 * Events recorded before version 4 have no subject (null) and an unsealed result.
 */
export type MediaHashedOf<Result> = DomainEvent<
  'MediaHashed',
  { item: { id: string; typeId: string }; version: number; subject: string | null; result: Result | null }
>;

/** MediaHashed as recorded, with the result the rules engine's MediaHasher port defines. */
export type MediaHashed = MediaHashedOf<MediaResult>;
