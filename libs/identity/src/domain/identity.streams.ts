import { streamName } from '#warden/kernel';

export const organizationStream = (orgId: string) => streamName('organization', orgId);
export const apiKeyStream = (orgId: string, keyId: string) => streamName('api_key', orgId, keyId);
