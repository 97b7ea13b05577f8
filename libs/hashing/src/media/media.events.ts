import type { MediaResult } from '#warden/rules';
import type { MediaHashedOf } from '../domain/media.decider.js';

/** One media URL of one item version, fetched and hashed once (or why it could not be). */
export type MediaHashed = MediaHashedOf<MediaResult>;
