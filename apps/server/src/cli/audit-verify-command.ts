import { closeSync, createReadStream, openSync, readFileSync, readSync } from 'node:fs';
import { createInterface } from 'node:readline';
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
    const lines = createInterface({ input: createReadStream(file), crlfDelay: Infinity });
    const report = await verifyAuditExport(lines, { jwks, skipSignatures, anchor });
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
  out(`covered: ${covered.join('; ')}`);
  const notCovered = [`anything recorded after ${c.signedAt}`];
  if (report.unsignedTail > 0) {
    notCovered.push(
      `the last ${report.unsignedTail} event(s) come after the last checkpoint: only the head signed at export time vouches for them, not a checkpoint made when they were chained`,
    );
  }
  if (c.anchor && !c.anchor.compared) notCovered.push(`the anchor (event ${c.anchor.seq}) lies before this export's range: not compared`);
  if (c.personalFields > 0)
    notCovered.push(`the plaintext personal fields ("personal") of ${c.personalFields} event(s): the chain covers their ciphertext only`);
  if (c.legacyCheckpoints > 0)
    notCovered.push(`${c.legacyCheckpoints} checkpoint(s) of chain v1: their signatures verify, their links are not comparable with v2`);
  notCovered.push("the header's jwks (a hint; the signatures were checked with the key set given)");
  out(`not covered: ${notCovered.join('; ')}`);
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
