import type { JsonObject } from '#warden/kernel';

/**
 * The NDJSON of `warden audit export` (docs/audit.md): a header line, one line per event of the
 * organization in chain order, and the signed head last. A checkpoint is an event line like any
 * other (type AuditChainCheckpointed), signed over the head it names. Everything a line shows is
 * covered by the chain or by a signature, or checked against what is (docs/audit.md, "Threat model"). v3: the head also
 * signs the SHA-256 of every line before it (`linesDigest`), so that what no link covers — the
 * plaintext `personal`, the header's `jwks` — cannot be changed after export either.
 */
export const AUDIT_EXPORT_FORMAT = 'warden-audit-export/v3';
/** The format before `linesDigest`: still verified as it was, its `personal` reported as not covered. */
export const AUDIT_EXPORT_FORMAT_V2 = 'warden-audit-export/v2';
/** The head of a v3 export: v1's members and `linesDigest`. The format is inside the signed bytes (headMessage). */
export const AUDIT_HEAD_FORMAT = 'warden-audit-head/v2';
/**
 * A head that signs no lines: an anchor's (nothing precedes it in its file, so anchors keep this
 * format and verify as before) and a v2 export's.
 */
export const AUDIT_HEAD_FORMAT_V1 = 'warden-audit-head/v1';

export interface AuditExportHeader {
  readonly kind: 'header';
  readonly format: typeof AUDIT_EXPORT_FORMAT | typeof AUDIT_EXPORT_FORMAT_V2;
  /** The hashing scheme of the links (audit-chain.ts). */
  readonly chain: string;
  readonly orgId: string;
  readonly from: string | null;
  readonly to: string | null;
  readonly exportedAt: string;
  /** Whether event lines carry `personal` (plaintext personal fields; only with the CLI's explicit flag). */
  readonly personalData: boolean;
  /** The link before the first event line: the genesis link, or the link of the event before the range. */
  readonly previous: { readonly seq: number; readonly link: string };
  /**
   * The organization's public keys as Warden had them at export time, retired ones included: a
   * hint only (whoever changed the file could change them too); verify wants a trusted copy.
   */
  readonly jwks: { readonly keys: readonly JsonObject[] };
}

export interface AuditExportEvent {
  readonly kind: 'event';
  /** The event's place in the organization's chain, from 1. */
  readonly seq: number;
  /** Its log position: chained with it (chain v2). */
  readonly position: number;
  readonly id: string;
  readonly stream: string;
  readonly revision: number;
  readonly type: string;
  /** Copies of `stored.metadata.occurredAt` and `.actor`, for reading; the verifier checks them. */
  readonly occurredAt: string;
  readonly actor: string;
  /**
   * The event's data and metadata exactly as stored, personal fields sealed, credentials replaced
   * by `{"$sha256": …}`: what the link covers.
   */
  readonly stored: { readonly data: JsonObject; readonly metadata: JsonObject };
  /**
   * Only in an export with personal data: the sealed fields opened, in plaintext. Not covered by
   * the chain (it covers their ciphertext, which only the data key ties to them): the head's
   * `linesDigest` covers them as Warden wrote them at export (v3); verify says which.
   */
  readonly personal?: JsonObject;
  /** The link the chain recorded for this event when it was chained. */
  readonly link: string;
}

/**
 * A signed statement of what an export (or an anchor) holds: the organization's chain from
 * `previous` to `last`, `events` of them, while the chain's head was `chainHead`. Signed by the
 * organization's key over headMessage. The last line of an export; alone in an anchor file.
 */
export interface AuditHead {
  readonly kind: 'head';
  readonly format: typeof AUDIT_HEAD_FORMAT | typeof AUDIT_HEAD_FORMAT_V1;
  readonly chain: string;
  readonly orgId: string;
  readonly from: string | null;
  readonly to: string | null;
  readonly personalData: boolean;
  /** The export's time (its header's `exportedAt`); an anchor's is its `signedAt`. */
  readonly exportedAt: string;
  readonly previous: { readonly seq: number; readonly link: string };
  /** The last event of the export; null when it has none. */
  readonly last: { readonly seq: number; readonly position: number; readonly link: string } | null;
  readonly events: number;
  /** The organization's chain head when the export was made (an anchor: the same as `last`). */
  readonly chainHead: { readonly seq: number; readonly position: number; readonly link: string } | null;
  /**
   * A data directory chained under v1 before this release: how many events had a v1 link when the
   * chain was rebuilt under v2, and how many no longer matched the log (the first one's seq).
   */
  readonly legacy?: { readonly chain: string; readonly checked: number; readonly differs: number; readonly firstDiffers: number | null };
  /**
   * Only in a head of AUDIT_HEAD_FORMAT (an export's): SHA-256 (base64url) of the bytes of every
   * line before the head, each with its newline (LinesDigest). The chain covers only what its links
   * hash; this covers the rest of the file as the exporter wrote it.
   */
  readonly linesDigest?: string;
  readonly signedAt: string;
  readonly kid: string;
  readonly signature: string;
}

export type AuditExportLine = AuditExportHeader | AuditExportEvent | AuditHead;

/**
 * Each line's members in the order the exporter writes them, and those of the members whose own
 * members are fixed too: with JSON.stringify's spelling of every value, the one form a line has
 * (docs/audit.md, "Exporting"). Verify refuses a line in any other form: two spellings of one line
 * could show a reader other values than the ones verified (a duplicate member is read as its last
 * value by JSON.parse and as its first by other readers).
 */
export const EXPORT_LINE_MEMBERS = {
  header: ['kind', 'format', 'chain', 'orgId', 'from', 'to', 'exportedAt', 'personalData', 'previous', 'jwks'],
  event: ['kind', 'seq', 'position', 'id', 'stream', 'revision', 'type', 'occurredAt', 'actor', 'stored', 'personal', 'link'],
  head: [
    'kind',
    'format',
    'chain',
    'orgId',
    'from',
    'to',
    'personalData',
    'exportedAt',
    'previous',
    'last',
    'events',
    'chainHead',
    'legacy',
    'linesDigest',
    'signedAt',
    'kid',
    'signature',
  ],
} as const satisfies Record<AuditExportLine['kind'], readonly string[]>;

/** Members whose own members the format fixes; any other object (data, metadata, jwks, personal) keeps the order it was stored in. */
export const NESTED_MEMBERS: Readonly<Record<string, readonly string[]>> = {
  stored: ['data', 'metadata'],
  previous: ['seq', 'link'],
  last: ['seq', 'position', 'link'],
  chainHead: ['seq', 'position', 'link'],
  legacy: ['chain', 'checked', 'differs', 'firstDiffers'],
};

/** A line as the exporter writes it. */
export function exportLineText(line: AuditExportLine): string {
  return lineText(line, EXPORT_LINE_MEMBERS[line.kind]);
}

/**
 * The text of a line's members in the given order, each fixed nested object's in its own; members
 * outside the lists are left out. For a value parsed from a line the exporter wrote, the same text
 * again: JSON.stringify's output parses back to values it writes alike.
 */
export function lineText(line: object, members: readonly string[]): string {
  return JSON.stringify(picked(line as Record<string, unknown>, members, true));
}

function picked(value: Record<string, unknown>, members: readonly string[], top: boolean): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const member of members) {
    const v = value[member];
    const nested = top ? NESTED_MEMBERS[member] : undefined;
    out[member] = nested && typeof v === 'object' && v !== null && !Array.isArray(v) ? picked(v as Record<string, unknown>, nested, false) : v;
  }
  return out;
}
