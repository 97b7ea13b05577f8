import type { JsonObject } from '#warden/kernel';

/**
 * The NDJSON of `warden audit export` (docs/audit.md): a header line, then one line per event of
 * the organization in chain order. A checkpoint is an event line like any other (type
 * AuditChainCheckpointed), signed over the head it names.
 */
export const AUDIT_EXPORT_FORMAT = 'warden-audit-export/v1';

export interface AuditExportHeader {
  readonly kind: 'header';
  readonly format: typeof AUDIT_EXPORT_FORMAT;
  /** The hashing scheme of the links (audit-chain.ts). */
  readonly chain: string;
  readonly orgId: string;
  readonly from: string | null;
  readonly to: string | null;
  readonly exportedAt: string;
  /** Whether `data` carries personal fields in plaintext (only with the CLI's explicit flag). */
  readonly personalData: boolean;
  /** The link before the first event line: the genesis link, or the link of the event before the range. */
  readonly previous: { readonly seq: number; readonly link: string };
}

export interface AuditExportEvent {
  readonly kind: 'event';
  /** The event's place in the organization's chain, from 1. */
  readonly seq: number;
  readonly position: number;
  readonly id: string;
  readonly stream: string;
  readonly revision: number;
  readonly type: string;
  readonly occurredAt: string;
  readonly actor: string;
  /** The event in its current shape (upcast), personal fields null unless the header says otherwise. */
  readonly data: JsonObject;
  /** The event's data and metadata exactly as stored (personal fields sealed): what the link covers. */
  readonly stored: { readonly data: JsonObject; readonly metadata: JsonObject };
  /** The link the chain recorded for this event when it was chained. */
  readonly link: string;
}

export type AuditExportLine = AuditExportHeader | AuditExportEvent;
