import * as z from 'zod';
import type { RoutingRuleDefinition } from '../catalog.model.js';
import { idList, idSchema, nameSchema } from './common-fields.schema.js';
import type { Path } from './config-problems.js';
import { checkConditionSet, type ConditionScope, conditionSetSchema, fieldScope } from './conditions.section-parser.js';
import { type CheckContext, checkReference, checkReferenceList } from './cross-references.checker.js';
import { entriesOf } from './raw-document.reader.js';

/** One entry of `routingRules:` or `appealRoutingRules:`, which have the same shape. */
export const routingRuleSchema: z.ZodType<RoutingRuleDefinition> = z.strictObject({
  id: idSchema,
  name: nameSchema,
  queueId: idSchema,
  itemTypeIds: idList,
  conditionSet: conditionSetSchema,
});

export function checkRoutingRules(doc: Record<string, unknown>, section: 'routingRules' | 'appealRoutingRules', ctx: CheckContext): void {
  for (const { index, raw } of entriesOf(doc, section)) checkRoutingRule(raw, [section, index], ctx);
}

/** Routing sees reports, so its conditions may use the report inputs that rules may not. */
function checkRoutingRule(rule: Record<string, unknown>, path: Path, ctx: CheckContext): void {
  checkReference(rule, 'queueId', ctx.declared.queues, path, 'queue', ctx);
  checkReferenceList(rule, 'itemTypeIds', ctx.declared.itemTypes, path, 'item type', ctx);
  const scope: ConditionScope = { fields: fieldScope(rule, ctx), allowsReportInputs: true };
  checkConditionSet(rule.conditionSet, [...path, 'conditionSet'], scope, ctx);
}
