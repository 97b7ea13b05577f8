import { streamName } from '#warden/kernel';

export const organizationStream = (orgId: string) => streamName('organization', orgId);
export const apiKeyStream = (orgId: string, keyId: string) => streamName('api_key', orgId, keyId);
/** One user's second factor: its own aggregate, apart from the user's account. */
export const secondFactorStream = (orgId: string, userId: string) => streamName('user_second_factor', orgId, userId);
