import type { RecordedEvent } from '#warden/kernel';

type Data = { readonly [key: string]: unknown };
const str = (value: unknown) => (typeof value === 'string' || typeof value === 'number' ? String(value) : '?');
const countOf = (d: Data) => (d['countAfter'] === undefined ? '' : `: count ${str(d['countAfter'])}`);
const ids = (values: unknown) =>
  Array.isArray(values) ? values.map((v) => (typeof v === 'object' && v !== null ? str((v as Data)['id']) : str(v))).join(', ') : '';

/** A one-line explanation per event type; others are named by their type. */
const SUMMARIES: { readonly [type: string]: (d: Data, e: RecordedEvent) => string } = {
  ItemSubmitted: (d, e) =>
    `Version ${e.revision} ${d['source'] === 'partial-fetch' ? 'fetched from the partial-items endpoint' : `submitted${d['source'] ? ` (through ${str(d['source'])})` : ''}`}` +
    `${d['typeVersion'] != null ? `, type version ${str(d['typeVersion'])}` : ''}${d['typeSchemaVariant'] === 'partial' ? ', partial' : ''}`,
  ItemEvaluated: (d) => {
    const rules = Array.isArray(d['rules']) ? (d['rules'] as Data[]) : [];
    const passed = rules.filter((r) => r['outcome'] === 'passed').map((r) => str(r['id']));
    return `Evaluated (${str(d['environment'])}): ${rules.length} rule(s), passed: ${passed.join(', ') || 'none'}; actions: ${ids(d['actions']) || 'none'}`;
  },
  ActionCallbackRequested: (d) =>
    `Action ${str((d['action'] as Data | undefined)?.['id'])} published (${str(d['trigger'] ?? 'rule')}; it counts in the creator's score), callback ${str(d['deliveryId'])}`,
  MediaHashed: (d) => `Media of version ${str(d['version'])} hashed (PDQ, MD5, SHA-256)`,
  ReviewEnqueueRequested: (d) => `Sent to review by ${str(d['source'] ?? 'a rule')}`,
  CallbackDeliveryRequested: (d) => `Callback ${str(d['deliveryId'])} requested`,
  CallbackAttemptFailed: (d) => `Callback attempt ${str(d['attempt'])} failed${d['status'] ? ` (HTTP ${str(d['status'])})` : ''}`,
  CallbackDelivered: (d) => `Callback delivered${d['status'] ? ` (HTTP ${str(d['status'])})` : ''}`,
  CallbackDeadLettered: () => 'Callback dead-lettered after its last attempt',
  CallbackRedeliveryRequested: () => 'Callback redelivery requested',
  ReportSubmitted: (d) => `Reported${d['policyId'] ? ` for ${str(d['policyId'])}` : ''}`,
  ReportRouted: (d) => {
    const rule = d['routedBy'] as Data | null | undefined;
    return `Report ${str(d['reportId'])} routed to queue ${str(d['queueId'])}${rule ? ` by routing rule ${str(rule['id'])}` : ''}`;
  },
  ReviewJobOpened: (d) => `Review job ${str(d['jobId'])} opened in queue ${str(d['queueId'])}`,
  ReviewJobMerged: (d) => `Another request merged into review job ${str(d['jobId'])}`,
  ReviewJobClaimed: () => 'Review job claimed',
  ReviewJobReleased: () => 'Review job released',
  ReviewJobSkipped: () => 'Review job skipped',
  ReviewJobAssigned: (d) => `Review job assigned to ${str(d['assignee'] ?? d['userId'])}`,
  ReviewJobDecided: (d) =>
    `Decided ${str(d['type'])}${d['closeReason'] ? ` (${str(d['closeReason'])})` : ''}${ids(d['actionIds']) ? `: ${ids(d['actionIds'])}` : ''}`,
  AppealSubmitted: (d) => `Appeal ${str(d['appealId'])} submitted`,
  AppealDecided: (d) => `Appeal ${str(d['appealId'])} decided ${str(d['decision'])}`,
  ActionExecuted: (d) => `Actions executed by the platform: ${ids(d['actionIds'] ?? d['actions'])}`,
  // Without `countAfter` (left out for a viewer who is not shown every strike: docs/console.md, "Investigate"), no count.
  UserStrikesApplied: (d) => `${str(d['strikes'])} strike(s) for action ${str((d['action'] as Data | undefined)?.['id'])}${countOf(d)}`,
  UserStrikeThresholdCrossed: () => 'Strike threshold crossed',
  UserActionsReversed: (d) =>
    `Actions reversed after appeal ${str(d['appealId'])}: ${str(d['strikes'])} strike(s) no longer count${d['countAfter'] === undefined ? '' : `, count ${str(d['countAfter'])}`}`,
  GdprDeletionRequested: () => 'GDPR deletion requested',
  GdprDeletionCompleted: () => 'GDPR deletion completed: personal data erased',
  ChildSafetyReportRecorded: () => 'Child-safety report recorded',
};

export interface HistoryEntry {
  readonly position: number;
  readonly occurredAt: string;
  readonly type: string;
  readonly stream: string;
  /** Who or what caused it: a console user's id, `api-key:<id>`, `cli`, or the module that reacted. */
  readonly actor: string;
  readonly summary: string;
  /** The event's data in its current shape, personal fields opened (null once erased). */
  readonly data: { [key: string]: unknown };
}

export function historyEntry(event: RecordedEvent): HistoryEntry {
  const data = event.data as Data;
  let summary: string;
  try {
    summary = SUMMARIES[event.type]?.(data, event) ?? event.type;
  } catch {
    summary = event.type;
  }
  return {
    position: event.position,
    occurredAt: event.metadata.occurredAt,
    type: event.type,
    stream: event.streamName,
    actor: event.metadata.actor,
    summary,
    data,
  };
}
