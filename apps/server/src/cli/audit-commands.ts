import { createReadStream, createWriteStream, readFileSync } from 'node:fs';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { AuditExporter, type Jwks, verifyAuditExport } from '#warden/audit';
import { parseIsoInstant } from '#warden/catalog';
import { idProblem } from '#warden/kernel';
import { type AppCommand, type StandaloneCommand, UsageError } from './cli-command.js';
import { parseCommandArgs, required } from './command-options.js';

export const auditExportCommand: AppCommand = {
  name: 'audit export',
  usage: '--org <orgId> [--from <ISO time>] [--to <ISO time>] [--out <file>] [--include-personal-data]',
  description: "the organization's event history as NDJSON with its audit chain and signed checkpoints (stdout by default)",
  async runInApp(args, app, out) {
    const { values } = parseCommandArgs(args, {
      org: { type: 'string' },
      from: { type: 'string' },
      to: { type: 'string' },
      out: { type: 'string' },
      'include-personal-data': { type: 'boolean' },
    });
    const orgId = required(values, 'org');
    const problem = idProblem(orgId);
    if (problem) throw new UsageError(`--org ${problem}`);
    const lines = app.get(AuditExporter).lines({
      orgId,
      from: time(values.from, 'from'),
      to: time(values.to, 'to'),
      personalData: values['include-personal-data'] === true,
    });
    if (!values.out) {
      for await (const line of lines) out(line);
      return 0;
    }
    const file = createWriteStream(values.out, { mode: 0o600 });
    let count = 0;
    for await (const line of lines) {
      count++;
      if (!file.write(`${line}\n`)) await once(file, 'drain');
    }
    file.end();
    await once(file, 'finish');
    out(`Wrote ${count - 1} event(s) of ${orgId} to ${values.out}`);
    return 0;
  },
};

export const auditVerifyCommand: StandaloneCommand = {
  name: 'audit verify',
  usage: '<file> [--jwks <file|url>]',
  description:
    'verifies an audit export offline: its chain, its checkpoints and their signatures (--jwks: a file or a URL of the key set, GET /api/v1/signing_keys?include=retired saved with curl, so that keys retired since still count); names every line that breaks',
  async run(args, out) {
    const { values, positionals } = parseCommandArgs(args, { jwks: { type: 'string' } }, true);
    if (positionals.length !== 1) throw new UsageError('Give one export file');
    const jwks = values.jwks === undefined ? undefined : await loadJwks(values.jwks);
    const lines = createInterface({ input: createReadStream(positionals[0]!), crlfDelay: Infinity });
    const report = await verifyAuditExport(lines, jwks);
    for (const p of report.problems) out(`line ${p.line}: ${p.message}`);
    const signatures = jwks ? `${report.signaturesVerified} signature(s) verified` : 'signatures not checked (no --jwks)';
    out(
      `${report.ok ? 'OK' : 'FAILED'}: ${report.events} event(s), ${report.checkpoints} checkpoint(s), ${signatures}` +
        (report.unsignedTail > 0 ? `; the last ${report.unsignedTail} event(s) come after the last checkpoint` : ''),
    );
    return report.ok ? 0 : 1;
  },
};

/** Read as the console's export reads `from` and `to` (a time without an offset is UTC). */
function time(value: string | undefined, name: string): Date | undefined {
  if (value === undefined) return undefined;
  const at = parseIsoInstant(value);
  if (!at) throw new UsageError(`--${name} must be an ISO 8601 time, got "${value}"`);
  return at;
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
