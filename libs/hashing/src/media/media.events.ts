import type { DomainEvent } from '#warden/kernel';
import type { MediaResult } from '#warden/rules';

/** One media URL of one item version, fetched and hashed once (or why it could not be). */
export type MediaHashed = DomainEvent<
  'MediaHashed',
  { item: { id: string; typeId: string }; version: number; result: MediaResult }
>;
