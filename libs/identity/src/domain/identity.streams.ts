import { streamName } from '#warden/kernel';

export const organizationStream = (orgId: string) => streamName('organization', orgId);
export const apiKeyStream = (orgId: string, keyId: string) => streamName('api_key', orgId, keyId);
export const userStream = (orgId: string, userId: string) => streamName('dashboard_user', orgId, userId);
/**
 * Keyed by the address's digest, never the address: a stream name is not sealed. The registry is
 * the deployment's, not an organization's: its events are recorded under `DEPLOYMENT_AUDIT`
 * (`registryContext`), so no organization's audit trail shows whether another one holds an address.
 */
export const userEmailStream = (emailDigest: string) => streamName('user_email', emailDigest);
/** Sign-in failures of an organization's users; `DEPLOYMENT_AUDIT` (no organization id can start with `_`) for unknown addresses. */
export const accessAuditStream = (orgId: string) => streamName('console_access', orgId);
export const DEPLOYMENT_AUDIT = '_deployment';
/** One user's second factor: its own aggregate, apart from the user's account. */
export const secondFactorStream = (orgId: string, userId: string) => streamName('user_second_factor', orgId, userId);

/** The context of a write to the email registry: the acting user or operator, on no organization's trail. */
export const registryContext = <C extends { orgId: string }>(context: C): C => ({ ...context, orgId: DEPLOYMENT_AUDIT });
