import {
  checkLenientItems,
  checkList,
  checkUserFields,
  type InputCatalog,
  type InputCheck,
  isIsoDateTime,
  isJsonObject,
  type ItemListLimits,
  itemSizeProblem,
  jsonBytes,
  type ProblemSink,
  validateItem,
} from '#warden/catalog/contracts';
import { type ErrorDetail, freeTextTooLong, MAX_FREE_TEXT_LENGTH } from '#warden/kernel';
import type { ContextItem, Reporter } from './report.events.js';

/** A report as checked: what the report event records (the reported item goes to ingestion as sent). */
export interface ReportInput {
  readonly reporter: Reporter;
  readonly reportedAt: string;
  readonly reportedItem: { readonly id: string; readonly typeId: string; readonly data: { [field: string]: unknown } };
  readonly policyId: string | null;
  readonly reason: string | null;
  readonly csam: boolean;
  readonly thread: ContextItem[];
  readonly reportedInThread: Array<{ id: string; typeId: string }>;
  readonly additionalItems: ContextItem[];
}

const TITLE = 'Invalid report';

/**
 * Checks a report (docs/review.md, "`POST /api/v1/report`") against the organization's catalog, all parts at once, so
 * that one answer names every problem. The reported item is held to its item type like a submitted
 * item; thread and additional items leniently: their shape, a known item type, and the formats of
 * the fields they carry (as a `partial` item: required fields are not enforced). Items over the
 * per-item size are reported apart (413).
 */
export function checkReport(body: Record<string, unknown>, catalog: InputCatalog, limits: ItemListLimits): InputCheck<ReportInput> {
  const problems: ErrorDetail[] = [];
  const tooLarge: ErrorDetail[] = [];
  const report = (pointer: string, detail: string) => problems.push({ title: TITLE, detail, pointer });
  const knownItemTypeIds = new Set(catalog.itemTypes.keys());

  const reporter = checkReporter(body['reporter'], catalog, report);

  const reportedAt = body['reportedAt'];
  if (reportedAt === undefined) report('/reportedAt', 'required field is missing');
  else if (!isIsoDateTime(reportedAt)) report('/reportedAt', 'expected an ISO 8601 datetime with a time part');

  const item = body['reportedItem'];
  if (item === undefined) report('/reportedItem', 'required field is missing');
  else if (!isJsonObject(item)) report('/reportedItem', 'expected a JSON object');
  else {
    const bytes = jsonBytes(item);
    if (bytes > limits.maxItemBytes) tooLarge.push(itemSizeProblem('/reportedItem', bytes, limits.maxItemBytes));
    const itemType = typeof item['typeId'] === 'string' ? catalog.itemTypes.get(item['typeId']) : undefined;
    for (const p of validateItem(item, itemType, { pointer: '/reportedItem', knownItemTypeIds })) report(p.pointer, p.detail);
  }

  const reason = checkReason(body['reportedForReason'], catalog, report);
  const thread = checkLenientItems('/reportedItemThread', body['reportedItemThread'], catalog.itemTypes, limits, report, tooLarge);
  const additionalItems = checkLenientItems('/additionalItems', body['additionalItems'], catalog.itemTypes, limits, report, tooLarge);
  const reportedInThread = checkReportedInThread(body['reportedItemsInThread'], thread, limits, report);

  if (tooLarge.length > 0 || problems.length > 0) return { ok: false, tooLarge, problems };
  const reported = item as { id: string; typeId: string; data: { [field: string]: unknown } };
  return {
    ok: true,
    input: {
      reporter: reporter!,
      reportedAt: reportedAt as string,
      reportedItem: { id: reported.id, typeId: reported.typeId, data: reported.data },
      ...reason,
      thread,
      reportedInThread,
      additionalItems,
    },
  };
}

function checkReporter(value: unknown, catalog: InputCatalog, report: ProblemSink): Reporter | undefined {
  if (value === undefined) return (report('/reporter', 'required field is missing'), undefined);
  if (!isJsonObject(value)) return (report('/reporter', 'expected a JSON object'), undefined);
  const kindOk = value['kind'] === 'user';
  if (!kindOk) report('/reporter/kind', "expected 'user' (the only kind of reporter supported)");
  const userOk = checkUserFields('/reporter', value, catalog.itemTypes, report);
  return kindOk && userOk ? { kind: 'user', id: value['id'] as string, typeId: value['typeId'] as string } : undefined;
}

function checkReason(value: unknown, catalog: InputCatalog, report: ProblemSink): Pick<ReportInput, 'policyId' | 'reason' | 'csam'> {
  const none = { policyId: null, reason: null, csam: false };
  if (value === undefined) return none;
  if (!isJsonObject(value)) return (report('/reportedForReason', 'expected a JSON object'), none);
  const { policyId, reason, csam } = value;
  if (policyId !== undefined) {
    if (typeof policyId !== 'string' || policyId === '') report('/reportedForReason/policyId', 'expected a non-empty string');
    else if (!catalog.policyIds.has(policyId)) report('/reportedForReason/policyId', `unknown policy '${policyId}'`);
  }
  if (reason !== undefined && typeof reason !== 'string') report('/reportedForReason/reason', 'expected a string');
  else if (typeof reason === 'string' && freeTextTooLong(reason)) report('/reportedForReason/reason', `at most ${MAX_FREE_TEXT_LENGTH} characters`);
  if (csam !== undefined && typeof csam !== 'boolean') report('/reportedForReason/csam', 'expected a boolean');
  return {
    policyId: typeof policyId === 'string' ? policyId : null,
    reason: typeof reason === 'string' ? reason : null,
    csam: csam === true,
  };
}

/** Items of the thread that were specifically reported: each must name an item of the thread. */
function checkReportedInThread(
  value: unknown,
  thread: readonly ContextItem[],
  limits: ItemListLimits,
  report: ProblemSink,
): Array<{ id: string; typeId: string }> {
  const pointer = '/reportedItemsInThread';
  if (value === undefined || !checkList(pointer, value, limits.maxItemsPerList, report)) return [];
  const inThread = new Set(thread.map((t) => JSON.stringify([t.typeId, t.id])));
  const tagged: Array<{ id: string; typeId: string }> = [];
  value.forEach((element: unknown, i) => {
    const at = `${pointer}/${i}`;
    if (!isJsonObject(element)) return report(at, 'expected an object {id, typeId}');
    const { id, typeId } = element;
    let shapeOk = true;
    if (typeof id !== 'string' || id === '') {
      report(`${at}/id`, 'expected a non-empty string');
      shapeOk = false;
    }
    if (typeof typeId !== 'string' || typeId === '') {
      report(`${at}/typeId`, 'expected a non-empty string');
      shapeOk = false;
    }
    if (!shapeOk) return;
    if (!inThread.has(JSON.stringify([typeId, id])))
      return report(at, `names no item of reportedItemThread (typeId '${typeId as string}', id '${id as string}')`);
    tagged.push({ id: id as string, typeId: typeId as string });
  });
  return tagged;
}
