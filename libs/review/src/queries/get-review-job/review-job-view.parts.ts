import type { ItemTypeDefinition } from '#warden/catalog';
import { parseIsoInstant } from '#warden/catalog/contracts';
import type { Evaluation } from '#warden/rules';
import type { ContextItem } from '#warden/ingestion/contracts';
import { firstCodePoints, freeTextTooLong, MAX_FREE_TEXT_LENGTH } from '#warden/kernel';
import type { ReviewJobState } from '../../domain/review-job.decider.js';
import type { JobState } from '../../projections/review-jobs.read-model.js';
import type { ContextItemView, HashMatchView, ItemTypeFieldView, RuleExplanationView } from './review-job.view.js';

/**
 * The pure parts of the job view: state, thread order, explanations and hash matches, related
 * items. The handler does the reads.
 */

const itemKey = (item: { typeId: string; id: string }) => `${item.typeId}\u0000${item.id}`;

/** As the read model names states; a lock whose time has passed no longer holds the job. */
export function jobStateOf(state: ReviewJobState, now: string): JobState {
  if (state.status === 'CLOSED') return 'CLOSED';
  if (state.lock && state.lock.expiresAt > now) return 'LOCKED';
  return state.assignedTo ? 'ASSIGNED' : 'PENDING';
}

/** The item type's fields, each with the roles it plays. */
export function fieldsWithRoles(type: ItemTypeDefinition): ItemTypeFieldView[] {
  return type.fields.map((f) => ({
    name: f.name,
    type: f.type,
    required: f.required,
    array: f.array,
    itemTypeIds: f.itemTypeIds,
    roles: Object.entries(type.roles).flatMap(([role, field]) => (field === f.name ? [role] : [])),
  }));
}

/** The item's time: its type's `createdAt` role field, else its first DATETIME field; null when absent or not a date. */
export function itemTimeOf(data: { [field: string]: unknown }, type: ItemTypeDefinition | undefined): string | null {
  if (!type) return null;
  const field = type.roles['createdAt'] ?? type.fields.find((f) => f.type === 'DATETIME' && !f.array)?.name;
  const value = field === undefined ? undefined : data[field];
  if (typeof value !== 'string' && typeof value !== 'number') return null;
  // A string as item validation read it (a comma fraction, an hours-only offset, UTC without one), not as `Date` would.
  const time = typeof value === 'string' ? parseIsoInstant(value) : new Date(value);
  return time === undefined || Number.isNaN(time.getTime()) ? null : time.toISOString();
}

/**
 * Context items of every report, each once (the first report that sent it wins; tagged when any
 * report listed it as reported), ordered by time; items without a time last, in the order sent.
 */
export function contextItems(
  sent: ReadonlyArray<{ items: readonly ContextItem[]; reported: ReadonlyArray<{ id: string; typeId: string }> }>,
  types: ReadonlyMap<string, ItemTypeDefinition>,
): ContextItemView[] {
  const reported = new Set(sent.flatMap((s) => s.reported.map(itemKey)));
  const seen = new Set<string>();
  const items: ContextItemView[] = [];
  for (const item of sent.flatMap((s) => s.items)) {
    const key = itemKey(item);
    if (seen.has(key)) continue;
    seen.add(key);
    const type = types.get(item.typeId);
    const data = item.data ?? {};
    items.push({ id: item.id, typeId: item.typeId, typeName: type?.name ?? null, data, createdAt: itemTimeOf(data, type), reported: reported.has(key) });
  }
  // A stable sort: equal times, and every item without one, keep the order they were sent in.
  return items
    .map((item, index) => ({ item, index }))
    .sort((a, b) => {
      const [ta, tb] = [a.item.createdAt, b.item.createdAt];
      if (ta !== null && tb !== null && ta !== tb) return ta < tb ? -1 : 1;
      if ((ta === null) !== (tb === null)) return ta === null ? 1 : -1;
      return a.index - b.index;
    })
    .map(({ item }) => item);
}

/** The explanations of the rules that published the action (all passing rules when the request names none). */
export function explanationsOf(evaluation: Evaluation, ruleIds: readonly string[]): RuleExplanationView[] {
  const wanted = new Set(ruleIds);
  return evaluation.rules
    .filter((r) => (wanted.size > 0 ? wanted.has(r.id) : r.outcome === 'passed'))
    .map((r) => ({ id: r.id, name: r.name, outcome: r.outcome, conditions: r.conditions.map((c) => ({ ...c })) }));
}

/** The image hash matches the explanations record (IMAGE_HASH_MATCH details: bank and distance). */
export function hashMatchesOf(rules: readonly RuleExplanationView[], bankNames: ReadonlyMap<string, string>): HashMatchView[] {
  const matches: HashMatchView[] = [];
  const seen = new Set<string>();
  for (const rule of rules) {
    for (const condition of rule.conditions) {
      const detail = condition.detail;
      if (!detail || typeof detail['bankId'] !== 'string' || typeof detail['distance'] !== 'number') continue;
      const hash = typeof detail['hash'] === 'string' ? detail['hash'] : null;
      const key = `${rule.id}\u0000${detail['bankId']}\u0000${hash}`;
      if (seen.has(key)) continue;
      seen.add(key);
      matches.push({ ruleId: rule.id, bankId: detail['bankId'], bankName: bankNames.get(detail['bankId']) ?? null, distance: detail['distance'], hash });
    }
  }
  return matches;
}

/** The items a RELATED_ITEM field names (one or a list of `{id, typeId}`), each once, at most `limit`. */
export function relatedRefs(data: { [field: string]: unknown }, type: ItemTypeDefinition, limit: number): Array<{ field: string; id: string; typeId: string }> {
  const refs: Array<{ field: string; id: string; typeId: string }> = [];
  const seen = new Set<string>();
  for (const field of type.fields.filter((f) => f.type === 'RELATED_ITEM')) {
    const value = data[field.name];
    for (const candidate of Array.isArray(value) ? value : [value]) {
      if (typeof candidate !== 'object' || candidate === null) continue;
      const { id, typeId } = candidate as { id?: unknown; typeId?: unknown };
      if (typeof id !== 'string' || typeof typeId !== 'string') continue;
      const key = itemKey({ id, typeId });
      if (seen.has(key) || refs.length >= limit) continue;
      seen.add(key);
      refs.push({ field: field.name, id, typeId });
    }
  }
  return refs;
}

/**
 * JSON characters of thread and context items one view carries. A report's context is what its
 * reporter sent (up to the request body limit), and a job's newest 50 reports each sent theirs:
 * a view read and answered them all, hundreds of megabytes for one moderator's click.
 */
export const CONTEXT_CHARS_SHOWN = 2 * 1024 * 1024;

/**
 * Admits reports' contexts, newest report first, while their items fit in CONTEXT_CHARS_SHOWN,
 * an item sent again alike by an earlier report counted once (a thread that every report repeats);
 * the same id with other data counts again, as it is held again. The newest report's context is
 * always admitted, whatever its size (one request's worth).
 */
export class ContextBudget {
  /** The JSON of every item admitted (at most the budget and one report's worth). */
  private readonly seen = new Set<string>();
  private chars = 0;
  private admitted = 0;

  constructor(private readonly limit = CONTEXT_CHARS_SHOWN) {}

  /** Whether `context` is shown; once one is refused, every later (older) one is too. */
  admit(context: { thread?: readonly ContextItem[]; additionalItems?: readonly ContextItem[] }): boolean {
    if (this.chars > this.limit) return false;
    const fresh = [...new Set([...(context.thread ?? []), ...(context.additionalItems ?? [])].map((item) => JSON.stringify(item)))].filter(
      (json) => !this.seen.has(json),
    );
    const chars = fresh.reduce((sum, json) => sum + json.length, 0);
    if (this.admitted > 0 && this.chars + chars > this.limit) {
      this.chars = this.limit + 1;
      return false;
    }
    for (const json of fresh) this.seen.add(json);
    this.chars += chars;
    this.admitted++;
    return true;
  }
}

/** The newest reports a view lists (`reportCount` counts them all): a mass-reported item's view stays a page, not 100,000 rows. */
export const MAX_REPORTS_SHOWN = 1_000;

/** Of reports oldest first, the newest MAX_REPORTS_SHOWN, still oldest first. */
export function reportsShown<T extends { reason: string | null }>(reports: readonly T[]): T[] {
  // Reasons are at most MAX_FREE_TEXT_LENGTH characters since that limit exists; one recorded
  // before it is shown cut to that length.
  return reports
    .slice(-MAX_REPORTS_SHOWN)
    .map((r) => (r.reason !== null && freeTextTooLong(r.reason) ? { ...r, reason: firstCodePoints(r.reason, MAX_FREE_TEXT_LENGTH) } : r));
}

/**
 * Oldest report first, by the instant each `reportedAt` names: the platform's times carry offsets
 * (`12:00+05:00` is before `08:00Z`), which their text does not order. One unreadable sorts last.
 */
export function byReportedAt(a: { reportedAt?: unknown }, b: { reportedAt?: unknown }): number {
  const at = (r: { reportedAt?: unknown }) => parseIsoInstant(r.reportedAt)?.getTime() ?? Number.POSITIVE_INFINITY;
  return at(a) - at(b) || 0;
}
