import { closeSync, createReadStream, openSync, readFileSync, readSync } from 'node:fs';
import { type AuditHead, type Jwks, type VerifyReport, verifyAuditExport } from '#warden/audit/verifier';
import { type Out, type StandaloneCommand, UsageError } from './cli-command.js';
import { parseCommandArgs } from './command-options.js';

// `warden audit verify`, an auditor's offline check of an export (docs/audit.md, "Verifying"). It
// imports only the audit's framework-free verifier entry, so that the CLI can run it without
// loading the application (run-offline.ts).

/** Exit code of a verify that checked the chain only (--no-signatures): never mistaken for success. */
export const VERIFY_UNSIGNED_EXIT = 3;

export const auditVerifyCommand: StandaloneCommand = {
  name: 'audit verify',
  usage: '<file> --jwks <file|url> [--anchor <file>] | <file> --no-signatures',
  description:
    'verifies an audit export offline: its chain, every line against it, its checkpoints and signed head with a key set you trust (--jwks: a file or a URL, ' +
    'GET /api/v1/signing_keys?include=retired saved with curl), and optionally an anchor (warden audit anchor); names the lines that break and says what is covered. ' +
    `--no-signatures checks the chain alone and exits ${VERIFY_UNSIGNED_EXIT}`,
  async run(args, out) {
    const { values, positionals } = parseCommandArgs(
      args,
      { jwks: { type: 'string' }, anchor: { type: 'string' }, 'no-signatures': { type: 'boolean' } },
      true,
    );
    if (positionals.length !== 1) throw new UsageError('Give one export file');
    const file = positionals[0]!;
    const skipSignatures = values['no-signatures'] === true;
    if (skipSignatures && values.jwks !== undefined) throw new UsageError('--no-signatures and --jwks exclude each other');
    if (!skipSignatures && values.jwks === undefined) throw new UsageError(noJwks(file));
    const jwks = values.jwks === undefined ? undefined : await loadJwks(values.jwks);
    const anchor = values.anchor === undefined ? undefined : loadAnchor(values.anchor);
    let report: VerifyReport;
    try {
      report = await verifyAuditExport(fileLines(file), { jwks, skipSignatures, anchor });
    } catch (error) {
      if (!(error instanceof NotUtf8)) throw error;
      out(
        `line ${error.line}: bytes that are not UTF-8, which the exporter always writes, on this line or one of the next (in the same read of the file): the file was changed`,
      );
      out('FAILED: the file was not read to its end');
      return 1;
    }
    printReport(report, out);
    if (report.problems.length > 0) return 1;
    return report.signaturesSkipped ? VERIFY_UNSIGNED_EXIT : 0;
  },
};

/** The report in words: problems, the verdict, then what is and is not covered (docs/audit.md, "Verifying"). */
function printReport(report: VerifyReport, out: Out): void {
  const c = report.coverage;
  for (const p of report.problems) out(p.line === 0 ? `anchor: ${p.message}` : `line ${p.line}: ${p.message}`);
  const span = c.firstSeq === null ? '' : ` (events ${c.firstSeq}–${c.lastSeq}${c.whole ? `, ${c.orgId}'s whole history` : ''})`;
  const signatures = report.signaturesSkipped ? 'signatures NOT checked' : `${report.signaturesVerified} signature(s) verified`;
  if (report.signaturesSkipped) {
    out('NOT VERIFIED: signatures were not checked (--no-signatures). The chain holds together, but anyone can rewrite a whole');
    out('export and its chain: only the signatures, checked with a key set you trust, tie it to the organization.');
  }
  const verdict = report.problems.length > 0 ? 'FAILED' : report.signaturesSkipped ? 'UNVERIFIED' : 'OK';
  out(`${verdict}: ${report.events} event(s)${span}, ${report.checkpoints} checkpoint(s), ${signatures}`);
  if (report.problems.length > 0 || report.signaturesSkipped) return;
  const covered = [
    `${c.whole ? `the chain from ${c.orgId}'s genesis` : "the chain from the header's previous link"} to the last event, the head signed by key ${c.headKid} at ${c.signedAt}` +
      (c.chainHeadSeq !== null && c.lastSeq !== c.chainHeadSeq ? ` (the chain's head was then event ${c.chainHeadSeq})` : ''),
  ];
  if (c.anchor?.compared) covered.push(`agrees with the anchor signed ${c.anchor.signedAt} (event ${c.anchor.seq})`);
  if (c.legacy)
    covered.push(`the ${c.legacy.checked} event(s) chained under v1 before this release matched their v1 links when the chain was rebuilt (the head says so)`);
  if (c.linesSigned)
    covered.push(
      'every line before the head byte for byte as Warden wrote it at export (the head signs their digest)' +
        (c.personalFields > 0 ? `, the plaintext personal fields ("personal") of ${c.personalFields} event(s) included` : ''),
    );
  out(`covered: ${covered.join('; ')}`);
  const notCovered = [`anything recorded after ${c.signedAt}`];
  if (report.unsignedTail > 0) {
    notCovered.push(
      `the last ${report.unsignedTail} event(s) come after the last checkpoint: only the head signed at export time vouches for them, not a checkpoint made when they were chained`,
    );
  }
  if (c.anchor && !c.anchor.compared) notCovered.push(`the anchor (event ${c.anchor.seq}) lies before this export's range: not compared`);
  // The digest shows that Warden wrote these plaintexts when exporting; whether they are what the
  // sealed ciphertext holds only the data key could show (docs/audit.md, "Exporting").
  if (c.personalFields > 0)
    notCovered.push(
      c.linesSigned
        ? `whether the plaintext personal fields match their sealed ciphertext (only the data key could show it)`
        : `the plaintext personal fields ("personal") of ${c.personalFields} event(s): the chain covers their ciphertext only, and the head of an export of format v2 signs no digest of its lines`,
    );
  if (c.legacyCheckpoints > 0)
    notCovered.push(`${c.legacyCheckpoints} checkpoint(s) of chain v1: their signatures verify, their links are not comparable with v2`);
  notCovered.push("the header's jwks (a hint; the signatures were checked with the key set given)");
  out(`not covered: ${notCovered.join('; ')}`);
}

class NotUtf8 extends Error {
  constructor(readonly line: number) {
    super(`line ${line} is not UTF-8`);
  }
}

/**
 * The file's lines, split at "\n" only and decoded strictly, so that verify reads every byte before
 * the head as the file holds it, which is what the head's linesDigest is checked against (docs/audit.md,
 * "Verifying"): readline would drop the "\r" of a "\r\n" and split at a lone one, a lenient decoder
 * would read other bytes as U+FFFD, and either would pass a file changed in that way. A byte-order mark
 * is kept, for the header to be refused.
 */
async function* fileLines(file: string): AsyncGenerator<string> {
  const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
  let pending: string[] = [];
  let line = 1;
  const decoded = (bytes: Buffer | undefined) => {
    try {
      return bytes ? decoder.decode(bytes, { stream: true }) : decoder.decode();
    } catch {
      throw new NotUtf8(line);
    }
  };
  for await (const bytes of createReadStream(file)) {
    const chunk = decoded(bytes as Buffer);
    let start = 0;
    for (let at = chunk.indexOf('\n'); at >= 0; at = chunk.indexOf('\n', start)) {
      pending.push(chunk.slice(start, at));
      yield pending.join('');
      pending = [];
      line++;
      start = at + 1;
    }
    if (start < chunk.length) pending.push(chunk.slice(start));
  }
  pending.push(decoded(undefined));
  const last = pending.join('');
  if (last !== '') yield last;
}

/** Why verify wants --jwks, naming the keys the export says it was signed with. */
function noJwks(file: string): string {
  let kids = '';
  try {
    const header = JSON.parse(firstLine(file)) as { jwks?: { keys?: Array<{ kid?: string }> } };
    const named = (header.jwks?.keys ?? []).map((k) => k.kid).filter((k): k is string => typeof k === 'string');
    if (named.length > 0)
      kids = ` The export's header names key(s) ${named.join(', ')}, but a key set that comes with the file proves nothing: whoever changed the file could change it.`;
  } catch {
    // Not readable as an export: verify itself will say so once it has a key set.
  }
  return (
    "verify checks signatures with a key set you trust: --jwks <file|url>, the organization's JWKS saved from the server " +
    `(curl -H "X-API-KEY: …" '<server>/api/v1/signing_keys?include=retired' > jwks.json) or handed to you by the organization.${kids} ` +
    `To check the chain alone: --no-signatures (exits ${VERIFY_UNSIGNED_EXIT}, never 0).`
  );
}

/** The header's bytes at most: an export may be gigabytes, and only its first line is wanted here. */
const HEADER_MAX_BYTES = 1024 * 1024;

/** The file's first line, read from its first HEADER_MAX_BYTES (not the whole export). */
function firstLine(file: string): string {
  const fd = openSync(file, 'r');
  try {
    const buffer = Buffer.alloc(HEADER_MAX_BYTES);
    const read = readSync(fd, buffer, 0, HEADER_MAX_BYTES, 0);
    const head = buffer.subarray(0, read);
    const end = head.indexOf(0x0a);
    return head.subarray(0, end < 0 ? read : end).toString('utf8');
  } finally {
    closeSync(fd);
  }
}

/** A JWKS from a file, or from a URL that answers without credentials. */
async function loadJwks(source: string): Promise<Jwks> {
  let text: string;
  if (/^https?:\/\//.test(source)) {
    const response = await fetch(source);
    // Warden's own GET /api/v1/signing_keys wants the organization's API key, which a URL cannot carry.
    if (!response.ok) {
      throw new UsageError(
        `--jwks ${source} answered ${response.status}; for Warden's own key set, save it first: curl -H "X-API-KEY: …" '<server>/api/v1/signing_keys?include=retired' > jwks.json`,
      );
    }
    text = await response.text();
  } else {
    text = readFileSync(source, 'utf8');
  }
  try {
    const jwks = JSON.parse(text) as Jwks;
    if (!Array.isArray(jwks.keys)) throw new Error('no "keys" array');
    return jwks;
  } catch (error) {
    throw new UsageError(`--jwks ${source} is not a JWKS: ${error instanceof Error ? error.message : String(error)}`);
  }
}

function loadAnchor(file: string): AuditHead {
  try {
    const anchor = JSON.parse(readFileSync(file, 'utf8')) as AuditHead;
    if (typeof anchor !== 'object' || anchor === null || anchor.kind !== 'head') throw new Error('not a signed head (kind "head")');
    return anchor;
  } catch (error) {
    throw new UsageError(`--anchor ${file} is not an anchor: ${error instanceof Error ? error.message : String(error)}`);
  }
}
