import * as z from 'zod';
import { type RuleDefinition, RULE_STATUSES } from '../catalog.model.js';
import { idList, idSchema, nameSchema, positiveInt } from './common-fields.schema.js';
import type { Path } from './config-problems.js';
import { checkConditionSet, type ConditionScope, conditionSetSchema, fieldScope } from './conditions.section-parser.js';
import { type CheckContext, checkReferenceList } from './cross-references.checker.js';
import { entriesOf } from './raw-document.reader.js';

const ISO_DATETIME = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2})(?::(\d{2})(\.\d+)?)?[ \t]*(Z|z|[+-]\d{2}(?::?\d{2})?)?$/;

/** A timestamp without an offset is taken as UTC, so the file means the same on every server. */
function normalizeDatetime(value: string | Date): string | null {
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? null : value.toISOString();
  const match = ISO_DATETIME.exec(value.trim());
  if (match === null) return null;
  const [, year, month, day, hour, minute, second = '00', fraction = '', zone = 'Z'] = match;
  if (!isCalendarDate(Number(year), Number(month), Number(day))) return null;
  if (Number(hour) > 23 || Number(minute) > 59 || Number(second) > 59) return null;
  const offset = zone.toUpperCase() === 'Z' ? 'Z' : normalizeOffset(zone);
  const date = new Date(`${year}-${month}-${day}T${hour}:${minute}:${second}${fraction}${offset}`);
  return Number.isNaN(date.getTime()) ? null : date.toISOString();
}

function isCalendarDate(year: number, month: number, day: number): boolean {
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

function normalizeOffset(zone: string): string {
  const digits = zone.slice(1).replace(':', '');
  return `${zone[0]}${digits.slice(0, 2)}:${digits.slice(2) || '00'}`;
}

const datetimeSchema = z.union([z.string(), z.date()], { error: 'must be an ISO 8601 datetime' }).transform((value, ctx) => {
  const iso = normalizeDatetime(value);
  if (iso !== null) return iso;
  const message = 'must be an ISO 8601 datetime with a time part, e.g. 2027-06-30T00:00:00Z';
  ctx.addIssue({ code: 'custom', message, input: value });
  return z.NEVER;
});

/** One entry of `rules:`. */
export const ruleSchema: z.ZodType<RuleDefinition> = z.strictObject({
  id: idSchema,
  name: nameSchema,
  status: z.enum(RULE_STATUSES).default('DRAFT'),
  itemTypeIds: idList,
  tags: z.array(z.string()).default([]),
  maxDailyActions: positiveInt.nullable().default(null),
  expiresAt: datetimeSchema.nullable().default(null),
  actionIds: idList,
  policyIds: idList,
  conditionSet: conditionSetSchema,
});

export function checkRules(doc: Record<string, unknown>, ctx: CheckContext): void {
  for (const { index, raw } of entriesOf(doc, 'rules')) checkRule(raw, ['rules', index], ctx);
}

function checkRule(rule: Record<string, unknown>, path: Path, ctx: CheckContext): void {
  checkReferenceList(rule, 'itemTypeIds', ctx.declared.itemTypes, path, 'item type', ctx);
  checkReferenceList(rule, 'actionIds', ctx.declared.actions, path, 'action', ctx);
  checkReferenceList(rule, 'policyIds', ctx.declared.policies, path, 'policy', ctx);
  const scope: ConditionScope = { fields: fieldScope(rule, ctx), allowsReportInputs: false };
  checkConditionSet(rule.conditionSet, [...path, 'conditionSet'], scope, ctx);
}
