import { streamName } from '#warden/kernel';

/** An organization's signed checkpoints of its audit chain. */
export const auditChainStream = (orgId: string) => streamName('audit_chain', orgId);
