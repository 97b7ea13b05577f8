import { streamName } from '#warden/kernel';

/** One configuration stream per organization: one expected revision serializes applies. */
export const orgConfigStream = (orgId: string) => streamName('org_config', orgId);
export const hashBankStream = (orgId: string, bankId: string) => streamName('hash_bank', orgId, bankId);
