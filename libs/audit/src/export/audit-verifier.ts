import { createPublicKey, type JsonWebKey, verify } from 'node:crypto';
import { type ChainHead, checkpointMessage, contentDigest, nextLink } from '../chain/audit-chain.js';
import { AUDIT_EXPORT_FORMAT, type AuditExportEvent, type AuditExportHeader } from './audit-export.format.js';

export interface VerifyProblem {
  /** 1-based line number in the file. */
  readonly line: number;
  readonly message: string;
}

export interface VerifyReport {
  readonly ok: boolean;
  readonly events: number;
  readonly checkpoints: number;
  /** Checkpoints whose signature was checked against the given JWKS. */
  readonly signaturesVerified: number;
  /** Events after the last checkpoint of the file: chained, but no signature vouches for them yet. */
  readonly unsignedTail: number;
  readonly problems: readonly VerifyProblem[];
}

export interface Jwks {
  readonly keys: ReadonlyArray<JsonWebKey & { kid?: string }>;
}

/** Problems past this many are not listed: the first ones say where the file stops being trustworthy. */
const MAX_PROBLEMS = 20;

/**
 * Verifies an audit export offline: every line's link recomputed from its stored form and the
 * link before it, the sequence unbroken, and each checkpoint's signature (with a JWKS) and head.
 * Names the line where a change, a removal or a reordering shows.
 */
export async function verifyAuditExport(lines: AsyncIterable<string> | Iterable<string>, jwks?: Jwks): Promise<VerifyReport> {
  const problems: VerifyProblem[] = [];
  const problem = (line: number, message: string) => problems.length < MAX_PROBLEMS && problems.push({ line, message });
  const keys = new Map((jwks?.keys ?? []).filter((k) => k.kid).map((k) => [k.kid!, k]));
  let header: AuditExportHeader | undefined;
  let previous = { seq: 0, link: '' };
  /** The link recorded at each seq seen so far, and the line it is on, for checkpoints to compare with. */
  const links = new Map<number, { link: string; line: number }>();
  let events = 0;
  let checkpoints = 0;
  let signaturesVerified = 0;
  let lastCheckpointSeq = 0;
  let n = 0;
  for await (const text of lines) {
    n++;
    if (text.trim() === '') continue;
    let parsed: AuditExportHeader | AuditExportEvent;
    try {
      parsed = JSON.parse(text) as AuditExportHeader | AuditExportEvent;
    } catch {
      problem(n, 'not valid JSON: the line was changed');
      continue;
    }
    if (!header) {
      if (parsed.kind !== 'header' || parsed.format !== AUDIT_EXPORT_FORMAT) {
        problem(n, `the first line must be the header of ${AUDIT_EXPORT_FORMAT}`);
        break;
      }
      header = parsed;
      previous = { ...parsed.previous };
      continue;
    }
    if (parsed.kind !== 'event') {
      problem(n, 'a second header: files were joined or lines moved');
      continue;
    }
    const e = parsed;
    events++;
    if (e.seq !== previous.seq + 1) {
      problem(n, e.seq > previous.seq + 1
        ? `event ${e.seq} follows event ${previous.seq}: ${e.seq - previous.seq - 1} event(s) before this line were removed, or lines were reordered`
        : `event ${e.seq} follows event ${previous.seq}: lines were reordered or repeated`);
    }
    const digest = contentDigest({ id: e.id, stream: e.stream, revision: e.revision, type: e.type, data: e.stored?.data ?? {}, metadata: e.stored?.metadata ?? {} });
    if (nextLink(previous.link, digest) !== e.link) {
      problem(n, `event ${e.seq} (${e.type} on ${e.stream}) does not match its link: it was changed, after it was chained or in this file`);
    }
    links.set(e.seq, { link: e.link, line: n });
    previous = { seq: e.seq, link: e.link };
    if (e.type === 'AuditChainCheckpointed') {
      checkpoints++;
      const cp = e.stored.data as unknown as ChainHead & { kid: string; signature: string };
      const covered = links.get(cp.seq);
      if (covered && covered.link !== cp.link) problem(n, `the checkpoint of event ${cp.seq} signs another link than line ${covered.line} has: that line was changed`);
      if (jwks) {
        const key = keys.get(cp.kid);
        if (!key) problem(n, `the checkpoint is signed by key ${cp.kid}, which the JWKS does not have (retired since? fetch the JWKS with ?include=retired)`);
        else if (!verify(null, checkpointMessage(header.orgId, cp), createPublicKey({ key, format: 'jwk' }), Buffer.from(cp.signature, 'base64url'))) {
          problem(n, `the checkpoint's signature does not verify with key ${cp.kid}: it was changed`);
        } else signaturesVerified++;
      }
      lastCheckpointSeq = Math.max(lastCheckpointSeq, cp.seq);
    }
  }
  if (!header) problem(Math.max(n, 1), 'no header line: not an audit export');
  const unsignedTail = events === 0 ? 0 : Math.max(0, previous.seq - Math.max(lastCheckpointSeq, header?.previous.seq ?? 0));
  return { ok: problems.length === 0, events, checkpoints, signaturesVerified, unsignedTail, problems };
}
