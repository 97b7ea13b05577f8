import * as z from 'zod';
import { ownValue } from '#warden/kernel';
import { FIELD_TYPES, ITEM_KINDS, type ItemTypeDefinition } from '../catalog.model.js';
import { flag, idList, idSchema, nameSchema } from './common-fields.schema.js';
import { isRecord, type Path } from './config-problems.js';
import { type CheckContext, checkReferenceList, type RawField } from './cross-references.checker.js';
import { entriesOf, isOneOf, listAt, stringAt } from './raw-document.reader.js';
import { itemTypeDsaSchema } from './dsa-mapping.section-parser.js';

const fieldSchema = z.strictObject({
  name: z.string().min(1),
  type: z.enum(FIELD_TYPES),
  required: flag,
  array: flag,
  itemTypeIds: idList,
});

/**
 * An item type's id has no `:`: a user's data is named `<typeId>:<id>` (the key that seals it, the
 * creator's submissions), so types `user` and `user:eu` would make `{user, eu:42}` and
 * `{user:eu, 42}` one person, and erasing one would erase the other.
 */
const itemTypeIdSchema = idSchema.refine((id) => !id.includes(':'), {
  error: "must not contain ':' (it separates an item type from an id where Warden names a user's data)",
});

/** One entry of `itemTypes:`. */
export const itemTypeSchema: z.ZodType<ItemTypeDefinition> = z.strictObject({
  id: itemTypeIdSchema,
  name: nameSchema,
  kind: z.enum(ITEM_KINDS),
  // `version: 1` in YAML is a number; it names a version all the same.
  version: z
    .union([z.string(), z.number().transform(String)], { error: 'must be a string' })
    .nullable()
    .default(null),
  fields: z.array(fieldSchema).default([]),
  roles: z.record(z.string(), z.string()).default({}),
  dsa: itemTypeDsaSchema.optional(),
});

/** The named fields of an item type as written. */
export function fieldsOf(itemType: Record<string, unknown>): RawField[] {
  return listAt(itemType, 'fields').flatMap((field) => (isRecord(field) && typeof field.name === 'string' ? [{ name: field.name, type: field.type }] : []));
}

export function checkItemTypes(doc: Record<string, unknown>, ctx: CheckContext): void {
  for (const { index, raw } of entriesOf(doc, 'itemTypes')) checkItemType(raw, ['itemTypes', index], ctx);
}

/**
 * The parts a field can play (docs/configuration-as-code.md, "The file") and the field types each
 * may name: the creator and the thread are related items (strikes, scores and the job view follow
 * them), `createdAt` a time the job view orders items by (a DATETIME, or a NUMBER of milliseconds
 * or an ISO STRING, which it reads as well), `displayName` a user's name. A role under any other
 * name, such as a misspelt `creater`, played no part and was accepted in silence.
 */
const ROLE_FIELD_TYPES: Readonly<Record<string, readonly (typeof FIELD_TYPES)[number][]>> = {
  creator: ['RELATED_ITEM'],
  createdAt: ['DATETIME', 'NUMBER', 'STRING'],
  thread: ['RELATED_ITEM'],
  displayName: ['STRING'],
};

function checkItemType(itemType: Record<string, unknown>, path: Path, ctx: CheckContext): void {
  const seen = new Set<string>();
  listAt(itemType, 'fields').forEach((field, j) => {
    const fieldPath = [...path, 'fields', j];
    const name = stringAt(field, 'name');
    if (name !== undefined && seen.has(name)) ctx.problems.add([...fieldPath, 'name'], `duplicate field name "${name}"`);
    if (name !== undefined) seen.add(name);
    const type = isRecord(field) ? field.type : undefined;
    if (isOneOf(FIELD_TYPES, type) && type !== 'RELATED_ITEM' && listAt(field, 'itemTypeIds').length > 0) {
      ctx.problems.add([...fieldPath, 'itemTypeIds'], 'is only allowed on RELATED_ITEM fields');
    }
    checkReferenceList(field, 'itemTypeIds', ctx.declared.itemTypes, fieldPath, 'item type', ctx);
  });
  checkRoles(itemType, path, ctx);
}

function checkRoles(itemType: Record<string, unknown>, path: Path, ctx: CheckContext): void {
  if (!isRecord(itemType.roles)) return;
  const fields = fieldsOf(itemType);
  for (const [role, fieldName] of Object.entries(itemType.roles)) {
    const rolePath = [...path, 'roles', role];
    const needed = ownValue(ROLE_FIELD_TYPES, role);
    if (needed === undefined) {
      ctx.problems.add(rolePath, `unknown role "${role}" (roles: ${Object.keys(ROLE_FIELD_TYPES).join(', ')})`);
      continue;
    }
    if (typeof fieldName !== 'string') continue;
    const field = fields.find((candidate) => candidate.name === fieldName);
    if (field === undefined) {
      ctx.problems.add(rolePath, `item type "${String(itemType.id)}" has no field "${fieldName}"`);
    } else if (isOneOf(FIELD_TYPES, field.type) && !needed.includes(field.type)) {
      ctx.problems.add(rolePath, `role ${role} must name a ${needed.join(', ')} field ("${fieldName}" is ${field.type})`);
    }
  }
}
