import { deterministicId, streamName } from '#warden/kernel';
import type { ErasedUser } from './gdpr-deletion.events.js';

/**
 * One deletion per user: its request id is derived from the organization and the user, so the
 * same user asked for again meets the same stream (idempotent), and GET finds the stream from the
 * id alone. Another organization's request id names a stream of this organization that is empty.
 */
export const gdprRequestId = (orgId: string, user: ErasedUser) => deterministicId('gdpr-deletion', orgId, user.typeId, user.id);

export const gdprDeletionStream = (orgId: string, requestId: string) => streamName('gdpr_deletion', orgId, requestId);
