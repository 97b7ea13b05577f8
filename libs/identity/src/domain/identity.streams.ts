import { streamName } from '#warden/kernel';

export const organizationStream = (orgId: string) => streamName('organization', orgId);
export const apiKeyStream = (orgId: string, keyId: string) => streamName('api_key', orgId, keyId);
export const userStream = (orgId: string, userId: string) => streamName('dashboard_user', orgId, userId);
/** Keyed by the address's digest, never the address: a stream name is not sealed. */
export const userEmailStream = (emailDigest: string) => streamName('user_email', emailDigest);
/** Sign-in failures of an organization's users; `DEPLOYMENT_AUDIT` (no organization id can start with `_`) for unknown addresses. */
export const accessAuditStream = (orgId: string) => streamName('console_access', orgId);
export const DEPLOYMENT_AUDIT = '_deployment';
