import type { DecisionActionCallback } from '#warden/callbacks/contracts';
import type { ActionDefinition, ItemTypeDefinition } from '#warden/catalog/contracts';
import { canonicalJsonDigest, deterministicId, itemSubject } from '#warden/kernel';
import type { JobRequests } from './job-requests.js';
import type { ChildSafetyReportRecorded, ItemVersionSeen, JobItem, JobPolicy, ReportReasons, Reporter } from './review-job.events.js';

/** The item version a decision is made on, as submitted (opened), read by the handler. */
export interface DecidedItem {
  version: number;
  data: { [field: string]: unknown } | null;
  creator: { id: string; typeId: string } | null;
  /** The version's `typeVersion` as recorded (null: none sent); absent where it was not read. */
  typeVersion?: string | null;
  typeSchemaVariant?: 'original' | 'partial';
  /** How the version arrived (`items`, `topic`, `partial-fetch` …). */
  source?: string;
}

/**
 * The digest of an item version's content: canonical JSON of its data and creator, as the rules
 * engine digests content (libs/rules/src/domain/item-content.ts), so that a decision and a rule
 * action on the same content name it alike. Null when the data is unreadable (erased).
 */
export const contentDigestOf = (item: Pick<DecidedItem, 'data' | 'creator'>): string | null =>
  item.data === null ? null : canonicalJsonDigest({ data: item.data, creator: item.creator });

/** What a decision records it was made on. */
export const versionSeen = (item: DecidedItem): ItemVersionSeen => ({ version: item.version, contentDigest: contentDigestOf(item) });

export interface MergedReport {
  reportId: string;
  reporter: Reporter;
  reportedAt: string;
  reason: string | null;
  policyId: string | null;
  csam: boolean;
  /** The job the report was carried from (a recreated job), else null. */
  fromJobId: string | null;
}

export const decisionDeliveryId = (orgId: string, decisionId: string, actionId: string) => deterministicId('decision-delivery', orgId, decisionId, actionId);

export const childSafetyReportId = (orgId: string, decisionId: string) => deterministicId('child-safety-report', orgId, decisionId);

/**
 * Every report merged into the job, in order, with its reason: from this job's own `reasons`, or,
 * for requests carried from the job it was recreated from, from that job's (`carriedReasons`).
 */
export function mergedReports(job: JobRequests, carriedReasons: { [fromJobId: string]: ReportReasons }): MergedReport[] {
  return job.requests.flatMap((request) => {
    if (!request.report) return [];
    const reasons = request.fromJobId ? (carriedReasons[request.fromJobId] ?? {}) : job.reasons;
    const reason = request.report.hasReason ? (reasons[request.report.reportId] ?? null) : null;
    const { reportId, reporter, reportedAt, policyId, csam } = request.report;
    return [{ reportId, reporter, reportedAt, reason, policyId, csam, fromJobId: request.fromJobId }];
  });
}

/** One action callback per chosen customer-defined action (docs/callbacks.md, "The bodies", trigger `decision`). */
export function decisionCallbacks(input: {
  orgId: string;
  decisionId: string;
  item: JobItem;
  actions: readonly ActionDefinition[];
  policies: JobPolicy[];
  /** The deciding moderator (a console user: their email is sealed under their own key too). */
  actor: { userId: string; email: string };
  note: string | null;
  reason: string | null;
  parameters: { [name: string]: unknown };
  decidedItem: DecidedItem;
  reports: readonly MergedReport[];
}): DecisionActionCallback[] {
  const reportHistory = input.reports.length === 0 ? null : input.reports.map((r) => ({ reason: r.reason, reporter: r.reporter }));
  return input.actions.map((action) => ({
    deliveryId: decisionDeliveryId(input.orgId, input.decisionId, action.id),
    item: input.item,
    action: { id: action.id },
    policies: input.policies,
    rules: [],
    custom: action.body,
    creator: input.decidedItem.creator,
    environment: 'MANUAL',
    trigger: 'decision',
    actor: { userId: input.actor.userId, email: input.actor.email },
    actorNote: input.note,
    // Only the values this action declares: another chosen action's parameters are not its business.
    parameters: Object.fromEntries(Object.entries(input.parameters).filter(([name]) => action.parameters.some((p) => p.name === name))),
    decisionReason: input.reason,
    decidedOn: versionSeen(input.decidedItem),
    reportHistory,
    subject: itemSubject(input.item, input.decidedItem.creator),
  }));
}

const MEDIA_TYPES = new Set(['IMAGE', 'VIDEO', 'AUDIO']);

/** The item's media URLs: its IMAGE, VIDEO and AUDIO fields, and `data.images`. */
export function mediaUrls(data: { [field: string]: unknown } | null, itemType: ItemTypeDefinition | undefined): string[] {
  if (!data) return [];
  const urls = new Set<string>();
  const add = (value: unknown) => {
    if (typeof value === 'string' && value !== '') urls.add(value);
    else if (Array.isArray(value)) for (const v of value) add(v);
  };
  add(data['images']);
  for (const field of itemType?.fields ?? []) if (MEDIA_TYPES.has(field.type)) add(data[field.name]);
  return [...urls];
}

/** What a CyberTipline-style report needs, as the moderator's decision records it. */
export function childSafetyReport(input: {
  orgId: string;
  decisionId: string;
  jobId: string;
  item: JobItem;
  itemType: ItemTypeDefinition | undefined;
  decidedItem: DecidedItem;
  reports: readonly MergedReport[];
  reason: string | null;
  note: string | null;
  reportedBy: { userId: string; email: string };
  now: string;
}): ChildSafetyReportRecorded['data'] {
  return {
    reportId: childSafetyReportId(input.orgId, input.decisionId),
    jobId: input.jobId,
    item: { ...input.item, version: input.decidedItem.version },
    creator: input.decidedItem.creator,
    reporters: input.reports.map((r) => r.reporter),
    incident: {
      reports: input.reports.map((r) => ({ reporter: r.reporter, reason: r.reason })),
      moderatorReason: input.reason,
      note: input.note,
    },
    mediaUrls: mediaUrls(input.decidedItem.data, input.itemType),
    reportedBy: input.reportedBy,
    recordedAt: input.now,
    subject: itemSubject(input.item, input.decidedItem.creator),
  };
}
