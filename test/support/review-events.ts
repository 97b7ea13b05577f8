// Object mothers for review's job requests and decisions, as the enqueue and decision paths record them.
import type { EnqueueRequest, ReviewJobDecided } from '#warden/review/contracts';

/** A user report's request to a job (source REPORT), by reporter `r1`/`u1`'s kind; `overrides` for the rest. */
export function reportRequest(reportId: string, overrides: Partial<EnqueueRequest> = {}): EnqueueRequest {
  return {
    requestId: reportId,
    source: 'REPORT',
    at: '2026-11-23T12:00:00.000Z',
    version: 0,
    report: {
      reportId,
      reporter: { kind: 'user', id: 'u1', typeId: 'user' },
      reportedAt: '2026-11-23T11:59:00Z',
      hasReason: true,
      policyId: null,
      csam: false,
    },
    action: null,
    policies: [],
    routedBy: null,
    fromJobId: null,
    ...overrides,
  };
}

/** A rule's request to a job (source RULE_EXECUTION, its `enqueue-to-mrt` action) on version 0; `overrides` for the rest. */
export function ruleRequest(requestId: string, overrides: Partial<EnqueueRequest> = {}): EnqueueRequest {
  return {
    requestId,
    source: 'RULE_EXECUTION',
    at: '2026-11-23T12:00:00.000Z',
    version: 0,
    report: null,
    action: { id: 'enqueue-to-mrt', rules: [] },
    policies: [],
    routedBy: null,
    fromJobId: null,
    ...overrides,
  };
}

/** The part of a request that makes it an appeal's (as an appeal job's opening carries it). */
export const appealPart = (appealId: string): Pick<EnqueueRequest, 'appeal'> => ({
  appeal: { appealId, actionsTaken: ['remove'], violatingPolicyIds: [], excludedModerators: [] },
});

/** A moderator's decision of a job (`targetQueueId` for TRANSFORM_JOB_AND_RECREATE_IN_QUEUE). */
export function jobDecision(jobId: string, type: ReviewJobDecided['data']['type'], targetQueueId: string | null, decisionId = `dec-${type}`): ReviewJobDecided {
  return {
    type: 'ReviewJobDecided',
    data: {
      jobId,
      decisionId,
      type,
      actor: { userId: 'm1' },
      actionIds: [],
      policies: [],
      reason: null,
      note: null,
      parameters: {},
      targetQueueId,
      closeReason: null,
      deliveryIds: [],
      decidedAt: '2026-11-23T12:05:00.000Z',
    },
  };
}
