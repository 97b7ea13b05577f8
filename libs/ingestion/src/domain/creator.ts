import type { ItemTypeDefinition } from '#warden/catalog/contracts';
import type { ItemIdentifier } from './item.events.js';

/**
 * The user an item concerns (docs/callbacks.md, "The bodies", `creator`): the item itself for USER items, else the
 * RELATED_ITEM named by the type's `creator` role, else a legacy `userId`.
 */
export function resolveCreator(
  item: { id: string; typeId: string; data: { [field: string]: unknown } },
  itemType: ItemTypeDefinition,
  fallback: ItemIdentifier | null = null,
): ItemIdentifier | null {
  if (itemType.kind === 'USER') return { id: item.id, typeId: item.typeId };
  const field = itemType.roles['creator'];
  const value = field ? item.data[field] : undefined;
  if (isIdentifier(value)) return { id: value.id, typeId: value.typeId };
  return fallback;
}

const isIdentifier = (v: unknown): v is ItemIdentifier =>
  typeof v === 'object' && v !== null && typeof (v as ItemIdentifier).id === 'string' && typeof (v as ItemIdentifier).typeId === 'string';
