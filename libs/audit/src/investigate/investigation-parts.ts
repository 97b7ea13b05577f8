import { decodeEvaluation, type ItemEvaluated } from '#warden/rules/contracts';
import { parseStreamName, type RecordedEvent } from '#warden/kernel';
import { historyEntry } from '../history/history-entry.js';
import type { HistoryRef } from '../history/item-history.projection.js';

/**
 * The pure parts of Investigate (docs/console.md, "Investigate"): each section made from the
 * events the reader found. A personal field reads null when the viewer may not see it or the
 * person was erased; `personalDataRedacted` says which (the console shows "erased" or "hidden").
 */

type Data = { readonly [key: string]: unknown };
const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);
/** The `{ typeId, id }` an event names in a field (item, reporter, creator …), or null. */
export const refOf = (v: unknown): HistoryRef | null => {
  if (typeof v !== 'object' || v === null) return null;
  const { id, typeId } = v as Data;
  return typeof id === 'string' && typeof typeId === 'string' ? { typeId, id } : null;
};
export const sameRef = (a: HistoryRef | null, b: HistoryRef) => a !== null && a.id === b.id && a.typeId === b.typeId;
const ids = (v: unknown): string[] => (Array.isArray(v) ? v.flatMap((p) => (typeof p === 'string' ? [p] : (str((p as Data | null)?.['id']) ?? []))) : []);
/** `user:<id>` → the console user's id; anything else (an API key, the CLI, a module) as it is. */
const actorOf = (event: RecordedEvent) => event.metadata.actor;

export interface VersionView {
  version: number;
  typeVersion: string | null;
  typeSchemaVariant: string;
  source: string;
  submittedAt: string;
  actor: string;
  /** Null: erased (GDPR deletion) or not shown to this viewer (`personalData` false). */
  data: { [field: string]: unknown } | null;
}

export function versionOf(event: RecordedEvent): VersionView {
  const d = event.data as Data;
  return {
    version: event.revision,
    typeVersion: str(d['typeVersion']),
    typeSchemaVariant: str(d['typeSchemaVariant']) ?? 'original',
    source: str(d['source']) ?? 'items',
    submittedAt: event.metadata.occurredAt,
    actor: actorOf(event),
    data: (d['data'] as { [field: string]: unknown } | null | undefined) ?? null,
  };
}

export interface EvaluationView {
  version: number;
  environment: string;
  evaluatedAt: string;
  rules: Array<{
    id: string;
    name: string;
    outcome: string;
    capped: boolean;
    conditions: Array<{ path: string; outcome: string; value?: unknown; error?: string; detail?: { [key: string]: unknown } }>;
  }>;
  actions: Array<{ id: string; kind: string }>;
  /** Conditions answered by a hash bank: which rule, which bank, how near. */
  hashMatches: Array<{ ruleId: string; path: string; bankId: string; distance: number | null }>;
}

export function evaluationOf(event: RecordedEvent): EvaluationView {
  const evaluation = decodeEvaluation(event.data as unknown as ItemEvaluated['data']);
  const hashMatches: EvaluationView['hashMatches'] = [];
  for (const rule of evaluation.rules)
    for (const c of rule.conditions) {
      const bankId = str(c.detail?.['bankId']);
      if (bankId !== null)
        hashMatches.push({ ruleId: rule.id, path: c.path, bankId, distance: typeof c.detail?.['distance'] === 'number' ? c.detail['distance'] : null });
    }
  return {
    version: evaluation.version,
    environment: evaluation.environment,
    evaluatedAt: event.metadata.occurredAt,
    rules: evaluation.rules.map((r) => ({
      id: r.id,
      name: r.name,
      outcome: r.outcome,
      capped: r.capped,
      conditions: r.conditions.map((c) => ({
        path: c.path,
        outcome: c.outcome,
        ...(c.value !== undefined ? { value: c.value } : {}),
        ...(c.error !== undefined ? { error: c.error } : {}),
        ...(c.detail !== undefined ? { detail: c.detail } : {}),
      })),
    })),
    actions: evaluation.actions.map((a) => ({ id: a.id, kind: a.kind })),
    hashMatches,
  };
}

export interface DeliveryView {
  state: 'PENDING' | 'DELIVERED' | 'FAILING' | 'DEAD_LETTERED';
  attempts: number;
  lastStatus: number | null;
  at: string;
}

/** Where a callback delivery stands, from its stream's events (a few per attempt). */
export function deliveryOf(events: readonly RecordedEvent[]): DeliveryView | null {
  if (events.length === 0) return null;
  let view: DeliveryView = { state: 'PENDING', attempts: 0, lastStatus: null, at: events[0]!.metadata.occurredAt };
  for (const e of events) {
    const d = e.data as Data;
    const status = typeof d['status'] === 'number' ? d['status'] : null;
    if (e.type === 'CallbackAttemptFailed') view = { state: 'FAILING', attempts: view.attempts + 1, lastStatus: status, at: e.metadata.occurredAt };
    else if (e.type === 'CallbackDelivered') view = { state: 'DELIVERED', attempts: view.attempts + 1, lastStatus: status, at: e.metadata.occurredAt };
    else if (e.type === 'CallbackDeadLettered') view = { ...view, state: 'DEAD_LETTERED', at: e.metadata.occurredAt };
    else if (e.type === 'CallbackRedeliveryRequested') view = { ...view, state: 'PENDING', at: e.metadata.occurredAt };
  }
  return view;
}

export interface ActionView {
  actionId: string;
  /** rule, decision, strike-threshold or post-actions. */
  trigger: string;
  item: HistoryRef;
  publishedAt: string;
  actor: string;
  policyIds: string[];
  ruleIds: string[];
  deliveryId: string;
  delivery: DeliveryView | null;
}

export function actionOf(event: RecordedEvent, delivery: DeliveryView | null): ActionView {
  const d = event.data as Data;
  return {
    actionId: str((d['action'] as Data | undefined)?.['id']) ?? '?',
    trigger: str(d['trigger']) ?? (d['actorEmail'] !== undefined ? 'decision' : 'rule'),
    item: refOf(d['item']) ?? { typeId: '?', id: '?' },
    publishedAt: event.metadata.occurredAt,
    actor: actorOf(event),
    policyIds: ids(d['policies']),
    ruleIds: ids(d['rules']),
    deliveryId: str(d['deliveryId']) ?? '',
    delivery,
  };
}

export interface ReportView {
  reportId: string;
  reportedAt: string;
  reportedItem: HistoryRef;
  reporter: HistoryRef | null;
  policyId: string | null;
  /** Null: none given, erased, or not shown to this viewer. */
  reason: string | null;
  /** Whether its personal fields were opened for this page (not: a viewer without personal data, or older than the page's budget). */
  opened: boolean;
  actor: string;
}

export function reportOf({ event, opened }: { event: RecordedEvent; opened: boolean }): ReportView {
  const d = event.data as Data;
  return {
    opened,
    reportId: str(d['reportId']) ?? '?',
    reportedAt: str(d['reportedAt']) ?? event.metadata.occurredAt,
    reportedItem: refOf(d['reportedItem']) ?? { typeId: '?', id: '?' },
    reporter: refOf(d['reporter']),
    policyId: str(d['policyId']),
    reason: str(d['reason']),
    actor: actorOf(event),
  };
}

/** The newest opened report's thread, oldest first as sent: the item's conversation. */
export function threadOf(
  reports: ReadonlyArray<{ event: RecordedEvent; opened: boolean }>,
): Array<{ typeId: string; id: string; data: { [field: string]: unknown } | null; reported: boolean }> {
  const withThread = reports.find(({ event: r }) => Array.isArray((r.data as Data)['thread']) && ((r.data as Data)['thread'] as unknown[]).length > 0)?.event;
  if (!withThread) return [];
  const d = withThread.data as Data;
  const reported = Array.isArray(d['reportedInThread']) ? (d['reportedInThread'] as unknown[]).map(refOf) : [];
  return (d['thread'] as unknown[]).flatMap((item) => {
    const ref = refOf(item);
    if (!ref) return [];
    const data = (item as Data)['data'];
    return [
      {
        ...ref,
        data: typeof data === 'object' && data !== null ? (data as { [field: string]: unknown }) : null,
        reported: reported.some((r) => sameRef(r, ref)),
      },
    ];
  });
}

export interface DecisionView {
  decisionId: string;
  type: string;
  /** The console user who decided; null for a decision Warden made (closed as actioned, expired, erased). */
  moderator: string | null;
  decidedAt: string;
  actionIds: string[];
  policyIds: string[];
  reason: string | null;
  closeReason: string | null;
}

export interface JobView {
  jobId: string;
  queueId: string | null;
  openedAt: string | null;
  decisions: DecisionView[];
}

/** Review jobs (newest first) with their decisions, from ReviewJobOpened and ReviewJobDecided events. */
export function jobsOf(opened: readonly RecordedEvent[], decided: readonly RecordedEvent[]): JobView[] {
  const jobs = new Map<string, JobView>();
  const job = (jobId: string) => {
    let found = jobs.get(jobId);
    if (!found) jobs.set(jobId, (found = { jobId, queueId: null, openedAt: null, decisions: [] }));
    return found;
  };
  for (const e of opened) {
    const d = e.data as Data;
    const j = job(str(d['jobId']) ?? parseStreamName(e.streamName).idParts.at(-1)!);
    j.queueId = str(d['queueId']);
    j.openedAt = str(d['openedAt']) ?? e.metadata.occurredAt;
  }
  for (const e of [...decided].reverse()) {
    const d = e.data as Data;
    const moderator = str((d['actor'] as Data | null | undefined)?.['userId']);
    job(str(d['jobId']) ?? parseStreamName(e.streamName).idParts.at(-1)!).decisions.push({
      decisionId: str(d['decisionId']) ?? '',
      type: str(d['type']) ?? '?',
      moderator,
      decidedAt: str(d['decidedAt']) ?? e.metadata.occurredAt,
      actionIds: ids(d['actionIds']),
      policyIds: ids(d['policies']),
      reason: str(d['reason']),
      closeReason: str(d['closeReason']),
    });
  }
  return [...jobs.values()].sort((a, b) => (b.openedAt ?? '').localeCompare(a.openedAt ?? ''));
}

export interface AppealView {
  appealId: string;
  appealedAt: string;
  actionedItem: HistoryRef | null;
  appellant: HistoryRef | null;
  reason: string | null;
  decision: string | null;
  decidedBy: string | null;
  decidedAt: string | null;
}

export function appealsOf(submitted: readonly RecordedEvent[], decided: readonly RecordedEvent[]): AppealView[] {
  return submitted.map((e) => {
    const d = e.data as Data;
    const appealId = str(d['appealId']) ?? '?';
    const decision = decided.find((x) => (x.data as Data)['appealId'] === appealId);
    const dd = (decision?.data ?? {}) as Data;
    // The sealed appellant is gone once erased; the plain subject (`typeId:id`) still says who appealed.
    const subject = str(d['subject']);
    const appellant =
      refOf(d['appealedBy']) ??
      (subject && subject.includes(':') ? { typeId: subject.slice(0, subject.indexOf(':')), id: subject.slice(subject.indexOf(':') + 1) } : null);
    return {
      appealId,
      appealedAt: str(d['appealedAt']) ?? e.metadata.occurredAt,
      actionedItem: refOf(d['actionedItem']),
      appellant,
      reason: str(d['appealReason']),
      decision: str(dd['decision']),
      decidedBy: str((dd['decidedBy'] as Data | undefined)?.['userId']),
      decidedAt: str(dd['decidedAt']),
    };
  });
}

export interface TimelineEntry {
  position: number;
  occurredAt: string;
  type: string;
  actor: string;
  summary: string;
}

/** The newest events, shown oldest first: each step with who or what caused it. */
export function timelineOf(newestFirst: readonly RecordedEvent[]): TimelineEntry[] {
  return [...newestFirst].reverse().map((e) => {
    const { position, occurredAt, type, actor, summary } = historyEntry(e);
    return { position, occurredAt, type, actor, summary };
  });
}

/** An item submission's item, from its stream's name (`item-<org>:<type>:<id>`). */
export function itemOfStream(stream: string): HistoryRef | null {
  const { category, idParts } = parseStreamName(stream);
  return category === 'item' && idParts.length === 3 ? { typeId: idParts[1]!, id: idParts[2]! } : null;
}
