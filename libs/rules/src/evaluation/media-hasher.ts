import type { CommandContext } from '#warden/kernel';
import type { MediaResult } from '../domain/evaluation.model.js';

/**
 * Fetches and hashes an item's media once per item version (the hashing module implements it).
 * The rules engine calls it before evaluating, so image signals see the hashes.
 */
export interface MediaHasher {
  /** `item.subject`: whose personal data the item is (its results are sealed under that subject's key). */
  hashItemMedia(
    context: CommandContext,
    item: { readonly id: string; readonly typeId: string; readonly subject: string },
    version: number,
    urls: readonly string[],
  ): Promise<MediaResult[]>;
}

export const MEDIA_HASHER = Symbol('MediaHasher');

/** Image URLs of an item: `data.images` (array of URL strings) and every IMAGE field. */
export function imageUrls(data: { readonly [field: string]: unknown }, imageFields: readonly string[]): string[] {
  const urls = new Set<string>();
  const add = (v: unknown) => {
    if (typeof v === 'string' && v !== '') urls.add(v);
    else if (Array.isArray(v)) for (const x of v) if (typeof x === 'string' && x !== '') urls.add(x);
  };
  add(data['images']);
  for (const f of imageFields) add(data[f]);
  return [...urls];
}
