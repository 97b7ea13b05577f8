import type { CommandContext } from '#warden/kernel';
import type { MediaResult } from '../domain/evaluation.model.js';

/**
 * Fetches and hashes an item's media once per item version (the hashing module implements it).
 * The rules engine asks for the hashes before evaluating, so image signals see them, and records
 * the new ones afterwards, with the evaluation (evaluation-recorder.ts): preparing an evaluation
 * writes nothing (docs/rules.md, "Evaluation").
 */
export interface MediaHasher {
  /**
   * Each URL's recorded result, or the result of fetching and hashing it now; writes nothing.
   * `item.subject`: whose personal data the item is (its results are sealed under that subject's key).
   */
  hashItemMedia(
    context: CommandContext,
    item: { readonly id: string; readonly typeId: string; readonly subject: string },
    version: number,
    urls: readonly string[],
  ): Promise<HashedMedia[]>;
  /** Records the results hashed now (`recorded: false`), once each: a result recorded meanwhile by another run stands. */
  recordItemMedia(
    context: CommandContext,
    item: { readonly id: string; readonly typeId: string; readonly subject: string },
    version: number,
    results: readonly MediaResult[],
  ): Promise<void>;
}

/** A media URL's result, and whether it was read from the log (true) or hashed now, still to record (false). */
export interface HashedMedia {
  readonly result: MediaResult;
  /** In the log already, or not to be added to it (an image past the per-version limit: nothing was fetched). */
  readonly recorded: boolean;
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
