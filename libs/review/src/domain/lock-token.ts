import { createHash } from 'node:crypto';

/**
 * What the job's stream records of a lock token: its SHA-256. The token itself is shown only in the
 * claim's answer (docs/review.md, "Claiming and locks"); every later command (renew, release, skip,
 * decide) hands the decider this digest to compare with the lock's. 256 random bits need no slow hash.
 */
export const lockTokenHash = (token: string) => createHash('sha256').update(token).digest('base64url');
