import { createPublicKey, type JsonWebKey, type KeyObject, verify } from 'node:crypto';
import { AUDIT_CHAIN_FORMAT, type ChainHead, checkpointMessage, checkpointMessageV1, contentDigest, genesisLink, nextLink } from '../chain/audit-chain.js';
import {
  AUDIT_EXPORT_FORMAT,
  AUDIT_EXPORT_FORMAT_V2,
  AUDIT_HEAD_FORMAT,
  AUDIT_HEAD_FORMAT_V1,
  type AuditExportHeader,
  type AuditHead,
  EXPORT_LINE_MEMBERS,
  lineText,
  NESTED_MEMBERS,
} from './audit-export.format.js';
import { headMessage, LinesDigest, okpThumbprint } from './audit-head.js';

export interface VerifyProblem {
  /** 1-based line number in the file (0: the anchor file). */
  readonly line: number;
  readonly message: string;
}

/** What the export's signatures and chain vouch for, and what they do not (docs/audit.md, "Verifying"). */
export interface VerifyCoverage {
  readonly orgId: string | null;
  /** The whole history from the organization's genesis (from: null), not a range. */
  readonly whole: boolean;
  readonly firstSeq: number | null;
  readonly lastSeq: number | null;
  /** The organization's chain head when the export was made (from the signed head). */
  readonly chainHeadSeq: number | null;
  readonly signedAt: string | null;
  readonly headKid: string | null;
  /**
   * Events that carry plaintext personal fields (`personal`). The chain does not cover them; in a v3
   * export the head's linesDigest does (linesSigned), as Warden wrote them at export.
   */
  readonly personalFields: number;
  /**
   * The signed head's linesDigest matched every line before it (v3): each byte of them is what Warden
   * wrote at export — `personal` and the header's jwks included. False for a v2 export, whose head signs none.
   */
  readonly linesSigned: boolean;
  /** Checkpoints signed before chain v2, over v1 links: their signature is checked, their link cannot be. */
  readonly legacyCheckpoints: number;
  /** The rebuild of a v1 data directory, as the signed head states it. */
  readonly legacy: AuditHead['legacy'] | null;
  /** The anchor compared with, if any. */
  readonly anchor: { readonly seq: number | null; readonly signedAt: string; readonly compared: boolean } | null;
}

export interface VerifyReport {
  readonly ok: boolean;
  readonly events: number;
  readonly checkpoints: number;
  /** Signatures (checkpoints, the head, the anchor) checked against the trusted JWKS. */
  readonly signaturesVerified: number;
  /** True when the caller chose not to check signatures: then nothing vouches for the file. */
  readonly signaturesSkipped: boolean;
  /** Events after the last checkpoint of the file: vouched for only by the head signed at export time. */
  readonly unsignedTail: number;
  readonly problems: readonly VerifyProblem[];
  readonly coverage: VerifyCoverage;
}

export interface Jwks {
  readonly keys: ReadonlyArray<JsonWebKey & { kid?: string }>;
}

export interface VerifyOptions {
  /** The trusted key set (never the one the file carries). Required unless `skipSignatures`. */
  readonly jwks?: Jwks;
  /** Check the chain only; the report then says nothing is vouched for. */
  readonly skipSignatures?: boolean;
  /** A head kept outside the operator's reach (`warden audit anchor`) to compare the export with. */
  readonly anchor?: AuditHead;
}

/** Problems past this many are not listed: the first ones say where the file stops being trustworthy. */
const MAX_PROBLEMS = 20;

const EVENT_KEYS = new Set<string>(EXPORT_LINE_MEMBERS.event);
const HEADER_KEYS = new Set<string>(EXPORT_LINE_MEMBERS.header);
/** What an event's link covers of `stored` (contentDigest): a member beside them would be read but never chained. */
const STORED_KEYS = new Set(NESTED_MEMBERS['stored']);
/** Characters of a line shown either side of where it departs from the exporter's form. */
const EXCERPT = 24;

interface EventRecord {
  readonly line: number;
  readonly seq: number;
  readonly position: number;
  readonly link: string;
  readonly digest: string;
  readonly type: string;
  readonly stream: string;
}

interface Vouch {
  readonly seq: number;
  readonly position: number | null;
  readonly link: string;
  /** The line that signs it, in words ("the checkpoint on line 12", "the signed head"). */
  readonly by: string;
  readonly line: number;
}

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const isInt = (v: unknown): v is number => Number.isSafeInteger(v) && (v as number) >= 0;
const range = (a: number, b: number) => (a === b ? `event ${a}` : `events ${a}–${b}`);

/**
 * Verifies an audit export offline (docs/audit.md, "Verifying"): every event's link recomputed
 * from its stored form, its position and the link of the event before it (by sequence number, so
 * a moved line is reported as moved, not as changed); the copies on each line checked against what
 * is chained; the header against the organization's genesis or the signed head; each checkpoint's
 * and the head's signature with a trusted JWKS whose key ids are their RFC 7638 thumbprints; every
 * line before the head against the head's linesDigest (v3); and, optionally, an anchor. Where the chain breaks, it names the range the signatures leave open.
 */
export async function verifyAuditExport(lines: AsyncIterable<string> | Iterable<string>, options: VerifyOptions = {}): Promise<VerifyReport> {
  // Collected as found, then reported in line order (the anchor's last), the first MAX_PROBLEMS.
  const found: VerifyProblem[] = [];
  const problem = (line: number, message: string) => {
    if (found.length < 100 * MAX_PROBLEMS) found.push({ line, message });
  };
  const skip = options.skipSignatures === true;
  const keys = trustedKeys(options.jwks);
  let signaturesVerified = 0;
  /** Checks a signature by a trusted key; false (with a problem) when it does not hold; true unchecked when skipping. */
  const signedBy = (line: number, what: string, kid: unknown, message: Buffer, signature: unknown): boolean => {
    if (skip) return true;
    const key = typeof kid === 'string' ? keys.get(kid) : undefined;
    if (typeof kid !== 'string' || !key) {
      problem(line, `${what} is signed by key ${String(kid)}, which the JWKS does not have (retired since? fetch the JWKS with ?include=retired)`);
      return false;
    }
    if ('refused' in key) {
      problem(
        line,
        `${what} is signed by key ${kid}, which the JWKS lists with another public key than its kid names (a kid must be the RFC 7638 thumbprint of its key): refused`,
      );
      return false;
    }
    if (typeof signature !== 'string' || !verify(null, message, key.key, Buffer.from(signature, 'base64url'))) {
      problem(line, `${what}'s signature does not verify with key ${kid}: it was changed`);
      return false;
    }
    signaturesVerified++;
    return true;
  };

  let header: AuditExportHeader | undefined;
  let head: AuditHead | undefined;
  let headLine = 0;
  const records = new Map<number, EventRecord>();
  const byLine: EventRecord[] = [];
  const checkpointLines: Array<{ line: number; seq: number; data: Json }> = [];
  let personalFields = 0;
  let n = 0;
  let afterHead = 0;
  // Every line read until the head, as read (a blank one too): what the head's linesDigest must match.
  const read = new LinesDigest();
  let unhashed: string | undefined;
  const blank: number[] = [];

  for await (const text of lines) {
    n++;
    // A line is hashed once the next is read, so that the head's own line, found by parsing it, is not.
    if (!head && unhashed !== undefined) read.add(unhashed);
    unhashed = text;
    if (text.trim() === '') {
      if (!head) blank.push(n);
      continue;
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      problem(n, 'not valid JSON: the line was changed');
      continue;
    }
    if (!isObject(parsed)) {
      problem(n, 'not a JSON object: the line was changed');
      continue;
    }
    if (!header) {
      // v2 exports (before linesDigest) are still verified as they were: the head's signed format says which (checkHead).
      if (parsed['kind'] !== 'header' || (parsed['format'] !== AUDIT_EXPORT_FORMAT && parsed['format'] !== AUDIT_EXPORT_FORMAT_V2)) {
        problem(
          n,
          parsed['format'] === 'warden-audit-export/v1'
            ? 'an export of format warden-audit-export/v1 (before chain v2): export again with this release'
            : `the first line must be the header of ${AUDIT_EXPORT_FORMAT} (or ${AUDIT_EXPORT_FORMAT_V2})`,
        );
        break;
      }
      header = checkHeader(parsed, n, problem);
      if (Object.keys(parsed).every((k) => HEADER_KEYS.has(k))) exactlyExported(n, 'the header', text, parsed, 'header', problem);
      continue;
    }
    if (head) afterHead++;
    const kind = parsed['kind'];
    const looksLikeEvent = isInt(parsed['seq']) && typeof parsed['link'] === 'string' && isObject(parsed['stored']);
    if (kind === 'head' && !looksLikeEvent) {
      if (head) problem(n, 'a second signed head: files were joined or lines moved');
      else {
        head = parsed as unknown as AuditHead;
        headLine = n;
        exactlyExported(n, 'the signed head', text, parsed, 'head', problem);
      }
      continue;
    }
    if (kind !== 'event') {
      if (!looksLikeEvent) {
        problem(
          n,
          kind === 'header'
            ? 'a second header: files were joined or lines moved'
            : `a line of kind ${JSON.stringify(kind)}, which this format does not have: the line was changed`,
        );
        continue;
      }
      problem(n, `event ${String(parsed['seq'])}'s line reads kind ${JSON.stringify(kind)} instead of "event": the line was changed`);
    }
    const e = parsed;
    const stored = e['stored'] as Json | undefined;
    if (
      !isInt(e['seq']) ||
      !isInt(e['position']) ||
      typeof e['link'] !== 'string' ||
      typeof e['id'] !== 'string' ||
      typeof e['stream'] !== 'string' ||
      !isInt(e['revision']) ||
      typeof e['type'] !== 'string' ||
      !isObject(stored) ||
      !isObject(stored['data']) ||
      !isObject(stored['metadata'])
    ) {
      problem(n, 'not an event line of this format (a member is missing or of the wrong type): the line was changed');
      continue;
    }
    const seq = e['seq'];
    const metadata = stored['metadata'];
    const withPersonal = header.personalData;
    const extra = Object.keys(e).filter((k) => !EVENT_KEYS.has(k) || (k === 'personal' && !withPersonal));
    if (extra.length > 0) problem(n, `event ${seq} carries ${extra.join(', ')}, which the chain does not cover: not part of this format`);
    const extraStored = Object.keys(stored).filter((k) => !STORED_KEYS.has(k));
    if (extraStored.length > 0)
      problem(
        n,
        `event ${seq}'s stored carries ${extraStored.join(', ')} beside data and metadata, which the chain does not cover: not part of this format, the line was changed`,
      );
    // Members outside the format are reported above, for what they are; otherwise the bytes themselves.
    if (extra.length === 0 && extraStored.length === 0) exactlyExported(n, `event ${seq}'s line`, text, e, 'event', problem);
    if (e['personal'] !== undefined) personalFields++;
    if (metadata['orgId'] !== header.orgId)
      problem(
        n,
        `event ${seq} belongs to organization ${JSON.stringify(metadata['orgId'])}, not ${header.orgId}: the line was changed or comes from another export`,
      );
    for (const field of ['occurredAt', 'actor'] as const) {
      if (e[field] !== metadata[field])
        problem(
          n,
          `event ${seq}'s ${field} reads ${JSON.stringify(e[field])}, but the chained form has ${JSON.stringify(metadata[field])}: the line was changed`,
        );
    }
    const record: EventRecord = {
      line: n,
      seq,
      position: e['position'],
      link: e['link'],
      digest: contentDigest({ id: e['id'], stream: e['stream'], revision: e['revision'], type: e['type'], data: stored['data'], metadata }),
      type: e['type'],
      stream: e['stream'],
    };
    const twin = records.get(seq);
    if (twin) problem(n, `event ${seq} again (also on line ${twin.line}): a line was repeated`);
    else records.set(seq, record);
    byLine.push(record);
    if (e['type'] === 'AuditChainCheckpointed') checkpointLines.push({ line: n, seq, data: stored['data'] });
  }

  const empty: VerifyCoverage = {
    orgId: header?.orgId ?? null,
    whole: header?.from === null,
    firstSeq: null,
    lastSeq: null,
    chainHeadSeq: null,
    signedAt: null,
    headKid: null,
    personalFields,
    linesSigned: false,
    legacyCheckpoints: 0,
    legacy: null,
    anchor: null,
  };
  if (!header) {
    if (n === 0 || found.length === 0) problem(Math.max(n, 1), 'no header line: not an audit export');
    return {
      ok: false,
      events: byLine.length,
      checkpoints: 0,
      signaturesVerified,
      signaturesSkipped: skip,
      unsignedTail: 0,
      problems: inLineOrder(found),
      coverage: empty,
    };
  }
  const orgId = header.orgId;
  const previous = header.previous;

  // Order: each line should hold the event after the one on the line before.
  for (let i = 1; i < byLine.length; i++) {
    const [a, b] = [byLine[i - 1]!, byLine[i]!];
    if (b.seq < a.seq)
      problem(b.line, `event ${b.seq} comes after event ${a.seq} (line ${a.line}): lines were moved (swapped or reordered), not necessarily changed`);
  }
  if (byLine[0] && byLine[0].seq < previous.seq + 1)
    problem(byLine[0].line, `event ${byLine[0].seq} comes before the header's previous event ${previous.seq}: lines were moved`);

  // A whole export starts at the genesis link (computable from the organization).
  if (header.from === null && !(previous.seq === 0 && previous.link === genesisLink(orgId))) {
    problem(
      1,
      previous.seq !== 0
        ? `a whole export (from: null) must start at ${orgId}'s genesis, but the header starts after event ${previous.seq}: events 1–${previous.seq} were removed`
        : `the header's previous link is not ${orgId}'s genesis link: the header was changed`,
    );
  }

  // What the signatures vouch for: the head, the checkpoints, the anchor; the genesis needs none.
  const vouches: Vouch[] = [];
  let headOk = false;
  let linesSigned = false;
  let linesDiffer = false;
  if (!head) {
    const last = byLine.at(-1);
    problem(n, `the export ends without its signed head: it was cut after line ${n}${last ? ` (event ${last.seq})` : ''}; events after it may be missing`);
  } else {
    headOk = checkHead(head, headLine, header, byLine, problem);
    if (afterHead > 0) problem(headLine, `${afterHead} line(s) follow the signed head: they are not part of the export`);
    if (headOk && signedBy(headLine, 'the signed head', head.kid, headMessage(head), head.signature)) {
      if (head.last) vouches.push({ seq: head.last.seq, position: head.last.position, link: head.last.link, by: 'the signed head', line: headLine });
    } else headOk = false;
    if (head.format === AUDIT_HEAD_FORMAT && typeof head.linesDigest === 'string') {
      linesDiffer = read.digest() !== head.linesDigest;
      linesSigned = headOk && !linesDiffer;
    }
  }
  // A range starts at the link the signed head names.
  const previousVouched = header.from === null ? previous.seq === 0 && previous.link === genesisLink(orgId) : headOk;
  let checkpoints = 0;
  let legacyCheckpoints = 0;
  for (const { line, seq, data } of checkpointLines) {
    checkpoints++;
    if (!isInt(data['seq']) || !isInt(data['position']) || typeof data['link'] !== 'string') {
      problem(line, `the checkpoint (event ${seq}) names no head: the line was changed`);
      continue;
    }
    const cp: ChainHead = { seq: data['seq'], position: data['position'], link: data['link'] };
    if (data['chain'] === undefined) {
      legacyCheckpoints++;
      signedBy(line, `the checkpoint of chain v1 (event ${seq})`, data['kid'], checkpointMessageV1(orgId, cp), data['signature']);
      continue;
    }
    if (data['chain'] !== AUDIT_CHAIN_FORMAT) {
      problem(line, `the checkpoint (event ${seq}) is of chain ${JSON.stringify(data['chain'])}, not ${AUDIT_CHAIN_FORMAT}: the line was changed`);
      continue;
    }
    if (cp.seq >= seq) {
      problem(line, `the checkpoint (event ${seq}) names event ${cp.seq}, which is not before it: the line was changed`);
      continue;
    }
    if (signedBy(line, `the checkpoint on line ${line}`, data['kid'], checkpointMessage(orgId, cp), data['signature'])) {
      vouches.push({ ...cp, by: `the checkpoint on line ${line}`, line });
    }
  }

  let anchorCoverage: VerifyCoverage['anchor'] = null;
  const anchor = options.anchor;
  if (anchor) {
    anchorCoverage = { seq: anchor.last?.seq ?? null, signedAt: String(anchor.signedAt), compared: false };
    // An anchor is a head of v1 (nothing precedes it); an export's head (v2) names its last event as well.
    if (anchor.kind !== 'head' || (anchor.format !== AUDIT_HEAD_FORMAT_V1 && anchor.format !== AUDIT_HEAD_FORMAT) || anchor.chain !== AUDIT_CHAIN_FORMAT) {
      problem(0, `the anchor is not a signed head of ${AUDIT_HEAD_FORMAT_V1} over ${AUDIT_CHAIN_FORMAT}`);
    } else if (anchor.orgId !== orgId) {
      problem(0, `the anchor is of organization ${anchor.orgId}, not ${orgId}`);
    } else if (signedBy(0, 'the anchor', anchor.kid, headMessage(anchor), anchor.signature)) {
      const last = anchor.last;
      const exportLast = head?.last?.seq ?? byLine.at(-1)?.seq ?? previous.seq;
      if (last && last.seq > previous.seq) {
        if (last.seq > exportLast) {
          problem(
            0,
            `the anchor (signed ${anchor.signedAt}) names event ${last.seq}, but this export ends at event ${exportLast}: the export is older than the anchor, or was cut`,
          );
        } else {
          anchorCoverage = { ...anchorCoverage, compared: true };
          vouches.push({ seq: last.seq, position: last.position, link: last.link, by: `the anchor (signed ${anchor.signedAt})`, line: 0 });
        }
      }
    }
  }

  // Links, by sequence number: a moved line still verifies; a missing one is reported once.
  const firstSeq = previous.seq + 1;
  const lastSeq = Math.max(head?.last?.seq ?? 0, ...byLine.map((r) => r.seq), previous.seq);
  const linkAt = (seq: number): string | undefined => (seq === previous.seq ? previous.link : records.get(seq)?.link);
  const lineOf = (seq: number) => records.get(seq)?.line;
  const vouchedAt = new Map<number, Vouch>();
  for (const v of vouches) {
    const recorded = v.seq === previous.seq ? { link: previous.link, position: null } : records.get(v.seq);
    if (!recorded) continue;
    if (recorded.link === v.link && (v.position === null || recorded.position === null || recorded.position === v.position)) vouchedAt.set(v.seq, v);
  }
  if (previousVouched)
    vouchedAt.set(previous.seq, {
      seq: previous.seq,
      position: null,
      link: previous.link,
      by: header.from === null ? 'the genesis' : 'the signed head',
      line: 1,
    });
  const vouchedSeqs = [...vouchedAt.keys()].sort((a, b) => a - b);
  /** The signed links on either side of a break, and the range between them, in words. */
  const bounds = (seq: number) => {
    const below = vouchedSeqs.filter((s) => s < seq).at(-1);
    const above = vouchedSeqs.find((s) => s >= seq);
    const from = below === undefined ? firstSeq : below + 1;
    const to = above ?? lastSeq;
    const at = (s: number) => (s === previous.seq ? (header.from === null ? 'the genesis' : 'the header') : `event ${s} (line ${lineOf(s)})`);
    if (below === seq - 1) return { below, text: `the change lies in event ${seq} (line ${lineOf(seq)}), right after the signed link at ${at(below)}` };
    const lines = [lineOf(from), lineOf(to)].filter((l) => l !== undefined);
    const where = lines.length === 2 && lines[0] !== lines[1] ? ` (lines ${lines[0]}–${lines[1]})` : lines.length > 0 ? ` (line ${lines[0]})` : '';
    return {
      below,
      text:
        `the change lies in ${range(from, to)}${where}, ` +
        `between the signed links at ${below === undefined ? 'no earlier point' : at(below)} and ${above === undefined ? 'no later point' : at(above)}`,
    };
  };

  let missingFrom: number | undefined;
  for (let seq = firstSeq; seq <= lastSeq + 1; seq++) {
    const present = seq <= lastSeq && records.has(seq);
    if (!present && seq <= lastSeq) {
      missingFrom ??= seq;
      continue;
    }
    if (missingFrom !== undefined) {
      const before = lineOf(missingFrom - 1);
      const after = lineOf(seq);
      problem(
        after ?? before ?? n,
        `${range(missingFrom, seq - 1)} ${seq - missingFrom === 1 ? 'is' : 'are'} missing${before ? ` after line ${before}` : ''}: removed, or the file was cut`,
      );
      missingFrom = undefined;
    }
    if (seq > lastSeq) break;
    const record = records.get(seq)!;
    const before = linkAt(seq - 1);
    if (before === undefined) continue;
    if (nextLink(before, record.position, record.digest) === record.link) continue;
    const prevVouched = vouchedAt.has(seq - 1);
    const culprit = prevVouched ? 'it was changed' : `it was changed, or event ${seq - 1} (line ${lineOf(seq - 1)}) was changed and its link recomputed`;
    problem(record.line, `event ${seq} (${record.type} on ${record.stream}) does not match its link: ${culprit}; ${bounds(seq).text}`);
  }

  // A signed link the file no longer has: changed and re-chained, or a line moved.
  for (const v of vouches) {
    if (vouchedAt.has(v.seq) || v.seq < previous.seq) continue;
    const recorded = v.seq === previous.seq ? { link: previous.link, line: 1 } : records.get(v.seq);
    if (!recorded) continue;
    const b = bounds(v.seq);
    problem(
      v.line || recorded.line,
      `${v.by} signs another link for event ${v.seq} than line ${recorded.line} has: ${range((b.below ?? previous.seq) + 1, v.seq)} ${v.seq - (b.below ?? previous.seq) === 1 ? 'was' : 'were'} changed and re-chained after ${b.below === undefined ? 'the start of the file' : `the signed link of event ${b.below}`}`,
    );
  }

  const lastCheckpointSeq = Math.max(previous.seq, ...vouches.filter((v) => v.by.startsWith('the checkpoint')).map((v) => v.seq));
  const coverage: VerifyCoverage = {
    ...empty,
    firstSeq: byLine.length > 0 ? firstSeq : null,
    lastSeq: byLine.length > 0 ? lastSeq : null,
    chainHeadSeq: head?.chainHead?.seq ?? null,
    signedAt: head ? String(head.signedAt) : null,
    headKid: head ? String(head.kid) : null,
    linesSigned,
    legacyCheckpoints,
    legacy: head?.legacy ?? null,
    anchor: anchorCoverage,
  };
  // Decided once the chain's own problems are known: they say more about where the lines differ
  // than one digest can, and the digest is reported only when they found nothing.
  const differs = linesDiffer ? linesDifference(headLine, blank, found, personalFields) : undefined;
  if (differs) problem(headLine, differs);
  if (head?.legacy && head.legacy.differs > 0) {
    problem(
      headLine,
      `when this release rebuilt the chain, ${head.legacy.differs} event(s) no longer matched their v1 link, the first event ${String(head.legacy.firstDiffers)}: the log was changed before the upgrade`,
    );
  }
  const problems = inLineOrder(found);
  return {
    ok: problems.length === 0 && !skip,
    events: byLine.length,
    checkpoints,
    signaturesVerified,
    signaturesSkipped: skip,
    unsignedTail: byLine.length === 0 ? 0 : Math.max(0, lastSeq - lastCheckpointSeq),
    problems,
    coverage,
  };
}

/**
 * A line must be byte for byte what the exporter writes for the values it holds (audit-export.format.ts,
 * lineText): verify checks the values JSON.parse reads, and another spelling of them could show a
 * reader others — a duplicate member (JSON.parse keeps its last value, other readers the first),
 * whitespace, an escape, another order of members, a member outside the format.
 */
function exactlyExported(
  line: number,
  what: string,
  text: string,
  parsed: Json,
  kind: keyof typeof EXPORT_LINE_MEMBERS,
  problem: (line: number, message: string) => void,
): void {
  const expected = lineText(parsed, EXPORT_LINE_MEMBERS[kind]);
  if (text === expected) return;
  const at = firstDifference(text, expected);
  // From the start of the member where they part (both read alike before it), so that the excerpt names it.
  const from = Math.max(0, at - EXCERPT, ...[',', '{', '['].map((c) => text.lastIndexOf(c, at - 1) + 1));
  const excerpt = (s: string) => (from >= s.length ? 'nothing' : `\`${visible(s.slice(from, at + EXCERPT))}${s.length > at + EXCERPT ? '…' : ''}\``);
  problem(
    line,
    `${what} is not what the exporter writes for its values: at character ${at + 1} it reads ${excerpt(text)} where the exporter writes ${excerpt(expected)}: ` +
      'a duplicate member, whitespace, an escape or another order of members, which a reader may show otherwise than verify reads it: the line was changed',
  );
}

/** Control characters (a tab, a carriage return between members) written as escapes, so that a message shows them. */
function visible(text: string): string {
  // eslint-disable-next-line no-control-regex -- control characters are what it looks for
  return text.replace(/[\u0000-\u001f\u007f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

function firstDifference(a: string, b: string): number {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return i;
}

function inLineOrder(found: readonly VerifyProblem[]): VerifyProblem[] {
  const order = (p: VerifyProblem) => (p.line === 0 ? Number.MAX_SAFE_INTEGER : p.line);
  return [...found].sort((a, b) => order(a) - order(b)).slice(0, MAX_PROBLEMS);
}

/** The header's members, checked for their types; the signed head vouches for their values. */
function checkHeader(parsed: Json, line: number, problem: (line: number, message: string) => void): AuditExportHeader {
  const previous = parsed['previous'];
  const ok =
    typeof parsed['orgId'] === 'string' &&
    parsed['chain'] === AUDIT_CHAIN_FORMAT &&
    isObject(previous) &&
    isInt(previous['seq']) &&
    typeof previous['link'] === 'string' &&
    typeof parsed['personalData'] === 'boolean' &&
    (parsed['from'] === null || typeof parsed['from'] === 'string') &&
    (parsed['to'] === null || typeof parsed['to'] === 'string');
  if (!ok) problem(line, `the header is not one of ${String(parsed['format'])} over ${AUDIT_CHAIN_FORMAT}: it was changed`);
  const extra = Object.keys(parsed).filter((k) => !HEADER_KEYS.has(k));
  if (extra.length > 0) problem(line, `the header carries ${extra.join(', ')}, which nothing signed covers: not part of this format`);
  const prev = isObject(previous) && isInt(previous['seq']) && typeof previous['link'] === 'string' ? previous : { seq: 0, link: '' };
  return {
    ...(parsed as unknown as AuditExportHeader),
    orgId: String(parsed['orgId']),
    previous: { seq: prev['seq'] as number, link: prev['link'] as string },
  };
}

/**
 * Why the lines before the head are not the ones its linesDigest signs, as far as the file tells: the
 * digest is one hash, so it cannot name a line. Undefined when a problem is already reported above
 * the head: that one names the line (a second report of the same change would only blame the head);
 * otherwise the blank lines, or what only the digest covers.
 */
function linesDifference(headLine: number, blank: readonly number[], found: readonly VerifyProblem[], personalFields: number): string | undefined {
  if (found.some((p) => p.line > 0 && p.line < headLine)) return undefined;
  const reason = 'the lines before the head are not the ones the head signed: ';
  const shown = (lines: readonly number[]) => `${lines.slice(0, 5).join(', ')}${lines.length > 5 ? ', …' : ''}`;
  if (blank.length > 0) return `${reason}line(s) ${shown(blank)} are blank, which the exporter never writes: lines were added`;
  const personal = personalFields > 0 ? `a plaintext personal field (\`personal\`, on ${personalFields} event line(s))` : undefined;
  return (
    `${reason}every chained value and copied field checks out, so what changed is what only the head's linesDigest covers: ` +
    `${personal ? `${personal} or ` : ''}the header's jwks: the file was changed after export`
  );
}

/** The signed head must state exactly what the file holds. */
function checkHead(
  head: AuditHead,
  line: number,
  header: AuditExportHeader,
  byLine: readonly EventRecord[],
  problem: (line: number, message: string) => void,
): boolean {
  if ((head.format !== AUDIT_HEAD_FORMAT && head.format !== AUDIT_HEAD_FORMAT_V1) || head.chain !== AUDIT_CHAIN_FORMAT) {
    problem(line, `the signed head is not one of ${AUDIT_HEAD_FORMAT} over ${AUDIT_CHAIN_FORMAT}: it was changed`);
    return false;
  }
  // The head's format is signed, the header's is not: the head decides whether its linesDigest is
  // checked, so that relabelling a v3 export as v2 cannot drop the check (a v2 head has no digest).
  const v3 = head.format === AUDIT_HEAD_FORMAT;
  if (v3 !== (header.format === AUDIT_EXPORT_FORMAT)) {
    problem(
      1,
      `the header reads ${String(header.format)}, but the signed head is of ${head.format}, which ${v3 ? `ends an export of ${AUDIT_EXPORT_FORMAT}` : `ends an export of ${AUDIT_EXPORT_FORMAT_V2}`}: the header was changed`,
    );
    return false;
  }
  if (v3 !== (typeof head.linesDigest === 'string')) {
    problem(
      line,
      v3
        ? `the signed head (${head.format}) carries no linesDigest of the lines before it: it was changed`
        : `the signed head (${head.format}) carries a linesDigest, which that format does not have: it was changed`,
    );
    return false;
  }
  let ok = true;
  // What differs from the header is reported on the header's line: the signed head is the reference.
  const at = (where: number, message: string) => {
    problem(where, message);
    ok = false;
  };
  const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
  for (const field of ['orgId', 'from', 'to', 'personalData', 'exportedAt'] as const) {
    if (!same(head[field], header[field]))
      at(1, `the header's ${field} (${JSON.stringify(header[field])}) is not the one the head signs (${JSON.stringify(head[field])}): the header was changed`);
  }
  if (!same(head.previous, header.previous)) {
    at(
      1,
      `the header's previous event (${header.previous.seq}) is not the one the head signs (${String(head.previous?.seq)}): the header was changed, or lines before the first were removed`,
    );
  }
  const last = byLine.reduce<EventRecord | undefined>((m, r) => (m === undefined || r.seq > m.seq ? r : m), undefined);
  if (head.events !== byLine.length) {
    at(
      line,
      head.events > byLine.length
        ? `the head signs ${head.events} event(s), the file holds ${byLine.length}: ${head.events - byLine.length} were removed`
        : `the head signs ${head.events} event(s), the file holds ${byLine.length}: lines were added`,
    );
  }
  if (head.last === null ? last !== undefined : !last || last.seq !== head.last.seq) {
    const signed = head.last === null ? 'no event' : `event ${head.last.seq}`;
    at(
      line,
      `the head signs ${signed} as the last, the file ends at ${last ? `event ${last.seq} (line ${last.line})` : 'no event'}${head.last && (!last || last.seq < head.last.seq) ? ': events after it were removed (cut)' : ''}`,
    );
  }
  // Without an end time an export runs to the chain head it found (docs/audit.md, "Exporting"): a
  // signed last event short of it is a file cut before it was signed (an exporter given a damaged
  // chain did that until it refused to).
  const end = head.last?.seq ?? head.previous?.seq ?? 0;
  if (head.to === null && head.chainHead && end < head.chainHead.seq) {
    at(
      line,
      `the export has no end time, so it runs to the chain's head, event ${head.chainHead.seq}, but the head signs ${head.last ? `event ${end}` : 'no event'} as the last: ${range(end + 1, head.chainHead.seq)} ${head.chainHead.seq - end === 1 ? 'is' : 'are'} missing`,
    );
  }
  return ok;
}

type TrustedKey = { key: KeyObject } | { refused: true };

/**
 * The trusted JWKS's Ed25519 keys by kid. A key whose kid is not its RFC 7638 thumbprint is
 * refused (Warden's kids are thumbprints): otherwise a key set with the real kid and another
 * public key would vouch for a re-signed forgery.
 */
function trustedKeys(jwks: Jwks | undefined): Map<string, TrustedKey> {
  const keys = new Map<string, TrustedKey>();
  for (const k of jwks?.keys ?? []) {
    if (typeof k.kid !== 'string') continue;
    if (k.kty !== 'OKP' || k.crv !== 'Ed25519' || typeof k.x !== 'string' || okpThumbprint(k.x) !== k.kid) {
      if (!keys.has(k.kid)) keys.set(k.kid, { refused: true });
      continue;
    }
    try {
      keys.set(k.kid, { key: createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: k.x }, format: 'jwk' }) });
    } catch {
      keys.set(k.kid, { refused: true });
    }
  }
  return keys;
}
