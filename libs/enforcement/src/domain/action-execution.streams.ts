import { streamName } from '#warden/kernel';

/** One stream per execution: `action_execution-<org>:<executionId>` (the id is the service's). */
export const actionExecutionStream = (orgId: string, executionId: string): string => streamName('action_execution', orgId, executionId);
