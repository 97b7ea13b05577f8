import * as z from 'zod';
import { ACTION_KINDS, type ActionDefinition, BUILTIN_ACTION_IDS, FIELD_TYPES } from '../catalog.model.js';
import { callbackSchema, flag, idList, idSchema, jsonObjectSchema, nameSchema, nullableText, penaltySchema } from './common-fields.schema.js';
import type { Path } from './config-problems.js';
import { type CheckContext, checkReferenceList } from './cross-references.checker.js';
import { entriesOf, isOneOf } from './raw-document.reader.js';
import { actionDsaSchema } from './dsa-mapping.section-parser.js';

/** One entry of `actions:`. */
export const actionSchema: z.ZodType<ActionDefinition> = z.strictObject({
  id: idSchema,
  name: nameSchema,
  description: nullableText,
  kind: z.enum(ACTION_KINDS),
  itemTypeIds: idList,
  applyUserStrikes: flag,
  penalty: penaltySchema,
  callback: callbackSchema.nullable().default(null),
  body: jsonObjectSchema.default({}),
  parameters: z.array(z.strictObject({ name: z.string().min(1), type: z.enum(FIELD_TYPES), required: flag })).default([]),
  dsa: actionDsaSchema.optional(),
});

/** Rules and strike thresholds may name these without declaring them. */
export const BUILTIN_ACTIONS: ReadonlySet<string> = new Set(Object.values(BUILTIN_ACTION_IDS));

export function checkActions(doc: Record<string, unknown>, ctx: CheckContext): void {
  for (const { index, raw } of entriesOf(doc, 'actions')) checkAction(raw, ['actions', index], ctx);
}

function checkAction(action: Record<string, unknown>, path: Path, ctx: CheckContext): void {
  if (typeof action.id === 'string' && BUILTIN_ACTIONS.has(action.id)) {
    ctx.problems.add([...path, 'id'], `"${action.id}" is reserved for a built-in action`);
  }
  checkReferenceList(action, 'itemTypeIds', ctx.declared.itemTypes, path, 'item type', ctx);
  if (!isOneOf(ACTION_KINDS, action.kind)) return;
  const hasCallback = action.callback !== undefined && action.callback !== null;
  if (action.kind === 'CUSTOMER_DEFINED_ACTION' && !hasCallback) {
    ctx.problems.add([...path, 'callback'], 'is required for a CUSTOMER_DEFINED_ACTION (an object with an absolute http(s) url)');
  } else if (action.kind !== 'CUSTOMER_DEFINED_ACTION' && hasCallback) {
    ctx.problems.add([...path, 'callback'], `is only allowed on a CUSTOMER_DEFINED_ACTION, not ${action.kind}`);
  }
}
