import { PENALTIES, type Penalty } from '#warden/catalog/contracts';

/** 0 (NONE) to 4 (SEVERE). */
export const severityOf = (penalties: readonly Penalty[]): number => Math.max(0, ...penalties.map((p) => PENALTIES.indexOf(p)));

const MAX_COUNTED_REPORTS = 999_999;

/**
 * Sort keys of a pending job, ascending = offered first. Both are kept on every job, so a queue
 * can change its `order` without a rebuild. FIFO: oldest first. PRIORITY: more reports, then more
 * severe policies, then older first (docs/configuration-as-code.md, "The `queues:` and `routingRules:` sections"); the job id breaks ties, so the order is total.
 */
export const fifoKey = (openedAt: string, jobId: string) => `${openedAt}|${jobId}`;

export function priorityKey(reportCount: number, severity: number, openedAt: string, jobId: string): string {
  const fewerFirst = String(MAX_COUNTED_REPORTS - Math.min(reportCount, MAX_COUNTED_REPORTS)).padStart(6, '0');
  return `${fewerFirst}|${4 - severity}|${openedAt}|${jobId}`;
}
