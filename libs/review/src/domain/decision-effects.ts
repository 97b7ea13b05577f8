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

/**
 * What a decision sends of the job's reports (a callback's `reportHistory`, a child-safety report):
 * at most this many. A mass-reported item's decision would otherwise send every report ever merged,
 * which receivers' body limits refuse and one append to the log cannot hold (docs/review.md,
 * "Deciding"). The platform holds its own reports; the job view lists more.
 */
export const MAX_REPORTS_SENT = 100;
/** A reporter's reason is cut to this many characters where it is sent (it is free text of any length). */
export const MAX_REASON_SENT = 1_000;
/**
 * UTF-8 bytes of reports (as JSON) one decision sends in all its copies: each action's callback
 * and the child-safety report carry one. Sealed (each reason under its reporter's key, then the
 * whole under the item's), they stay within KurrentDB's default 1 MiB for the decision's one append.
 */
export const REPORTS_SENT_BYTES = 192 * 1024;

/** A report as a decision sends it. */
export interface SentReport {
  reason: string | null;
  reporter: Reporter;
}

/**
 * The reports a decision sends, in merge order, chosen among `reports` (the job's newest:
 * JobReports.newest): those flagged as child sexual abuse material first (a child-safety report
 * must name them, however many other reports came after), then the newest;
 * at most MAX_REPORTS_SENT, reasons cut to MAX_REASON_SENT characters, and as many as fit in the
 * decision's share of REPORTS_SENT_BYTES per copy (`copies`: the callbacks and the child-safety
 * report that carry them).
 */
export function reportsToSend(reports: readonly MergedReport[], copies: number): SentReport[] {
  const budget = Math.floor(REPORTS_SENT_BYTES / Math.max(1, copies));
  const newestFirst = reports.map((report, index) => ({ report, index })).reverse();
  const candidates = [...newestFirst.filter((c) => c.report.csam), ...newestFirst.filter((c) => !c.report.csam)];
  const chosen: Array<{ index: number; sent: SentReport }> = [];
  let bytes = 0;
  for (const { report, index } of candidates) {
    if (chosen.length === MAX_REPORTS_SENT) break;
    const sent: SentReport = { reason: report.reason === null ? null : cutReason(report.reason), reporter: report.reporter };
    const size = Buffer.byteLength(JSON.stringify(sent));
    if (bytes + size > budget) break;
    bytes += size;
    chosen.push({ index, sent });
  }
  return chosen.sort((a, b) => a.index - b.index).map((c) => c.sent);
}

/** At most MAX_REASON_SENT characters (code points: a pair is never split). */
function cutReason(reason: string): string {
  // Only the first code points are looked at: a reason of a megabyte costs what is kept.
  if (reason.length <= MAX_REASON_SENT) return reason;
  let kept = '';
  let count = 0;
  for (const char of reason) {
    if (count++ === MAX_REASON_SENT) break;
    kept += char;
  }
  return kept;
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
  /** What the decision sends of the job's reports (reportsToSend). */
  reports: readonly SentReport[];
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
  /** What the decision sends of the job's reports (reportsToSend). */
  reports: readonly SentReport[];
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
