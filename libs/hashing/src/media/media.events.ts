import type { DomainEvent } from '../../../kernel/src/index.js';
import type { MediaResult } from '../../../rules/src/index.js';

/** One media URL of one item version, fetched and hashed once (or why it could not be). */
export type MediaHashed = DomainEvent<
  'MediaHashed',
  { item: { id: string; typeId: string }; version: number; result: MediaResult }
>;
