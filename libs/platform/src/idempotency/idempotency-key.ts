import { createHash } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { canonicalJsonDigest, invalidInput } from '#warden/kernel';

export const IDEMPOTENCY_KEY_HEADER = 'idempotency-key';
const IDEMPOTENCY_KEY_POINTER = '/headers/idempotency-key';
export const IDEMPOTENT_REPLAYED_HEADER = 'Idempotent-Replayed';

/** 1 to 255 printable ASCII characters (space to tilde), as sent (HTTP drops surrounding blanks). */
const IDEMPOTENCY_KEY_PATTERN = /^[\x20-\x7e]{1,255}$/;

/**
 * The request's Idempotency-Key, checked; a 400 pointing at the header when it is empty, too
 * long, not printable ASCII, or sent more than once.
 */
export function idempotencyKeyOf(request: FastifyRequest): string {
  const raw = request.raw.rawHeaders;
  let sent = 0;
  for (let i = 0; i < raw.length; i += 2) if (raw[i]!.toLowerCase() === IDEMPOTENCY_KEY_HEADER) sent++;
  const value = request.headers[IDEMPOTENCY_KEY_HEADER];
  if (sent > 1 || Array.isArray(value)) throw badKey('send one Idempotency-Key header, not several');
  if (typeof value !== 'string' || !IDEMPOTENCY_KEY_PATTERN.test(value)) {
    throw badKey('an Idempotency-Key is 1 to 255 printable ASCII characters (a UUID, say)');
  }
  return value;
}

const badKey = (detail: string) => invalidInput({ title: 'Invalid Idempotency-Key', detail, pointer: IDEMPOTENCY_KEY_POINTER });

/** The key as stored: a digest, so that the record's id is bounded and says nothing of the key. */
export const storedKey = (key: string) => createHash('sha256').update(key).digest('base64url');

/**
 * What makes two requests "the same" for a key: method, route and the canonical JSON of the
 * parsed body (key order and whitespace do not matter; every value does).
 */
export function requestFingerprint(method: string, route: string, body: unknown): string {
  return canonicalJsonDigest([method, route, body ?? null]);
}
