import { createWriteStream, writeFileSync } from 'node:fs';
import { once } from 'node:events';
import { AuditExporter } from '#warden/audit';
import { parseIsoInstant } from '#warden/catalog';
import { idProblem, redactUrl } from '#warden/kernel';
import { GUARDED_HTTP_CLIENT, type GuardedHttpClient, WARDEN_CONFIG, type WardenConfig } from '#warden/platform';
import { type AppCommand, UsageError } from './cli-command.js';
import { parseCommandArgs, required } from './command-options.js';

export const auditExportCommand: AppCommand = {
  name: 'audit export',
  usage: '--org <orgId> [--from <ISO time>] [--to <ISO time>] [--out <file>] [--include-personal-data]',
  description: "the organization's event history as NDJSON with its audit chain, signed checkpoints and a head signed now (stdout by default)",
  async runInApp(args, app, out) {
    const { values } = parseCommandArgs(args, {
      org: { type: 'string' },
      from: { type: 'string' },
      to: { type: 'string' },
      out: { type: 'string' },
      'include-personal-data': { type: 'boolean' },
    });
    const orgId = orgOf(values);
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
    out(`Wrote ${count - 2} event(s) of ${orgId} to ${values.out}`);
    return 0;
  },
};

export const auditAnchorCommand: AppCommand = {
  name: 'audit anchor',
  usage: '--org <orgId> [--out <file>] [--post]',
  description:
    "the organization's chain head, signed now, for a place outside the operator's reach: to a file (--out), POSTed to WARDEN_AUDIT_ANCHOR_URL through the outbound guard (--post), or to stdout; verify --anchor compares an export with it",
  async runInApp(args, app, out) {
    const { values } = parseCommandArgs(args, { org: { type: 'string' }, out: { type: 'string' }, post: { type: 'boolean' } });
    const orgId = orgOf(values);
    const config = app.get<WardenConfig>(WARDEN_CONFIG);
    if (values.post === true && config.auditAnchorUrl === undefined) throw new UsageError('--post needs WARDEN_AUDIT_ANCHOR_URL (docs/configuration.md)');
    const head = await app.get(AuditExporter).anchor(orgId);
    const text = JSON.stringify(head);
    const what = `the head of ${orgId}'s chain (${head.last ? `event ${head.last.seq}` : 'no event yet'}, signed ${head.signedAt} by key ${head.kid})`;
    if (values.out !== undefined) {
      writeFileSync(values.out, `${text}\n`);
      out(`Wrote ${what} to ${values.out}`);
    }
    if (values.post === true) {
      const url = config.auditAnchorUrl!;
      const response = await app.get<GuardedHttpClient>(GUARDED_HTTP_CLIENT).request({
        method: 'POST',
        url,
        headers: { 'content-type': 'application/json' },
        body: text,
        maxBytes: 64 * 1024,
      });
      if (response.status < 200 || response.status >= 300) {
        // Without its query: an anchor service's token is there (the guard refuses user info), and this runs from cron into job logs.
        out(`${redactUrl(url)} answered ${response.status}: the anchor was not accepted`);
        return 1;
      }
      out(`Posted ${what} to ${redactUrl(url)} (${response.status})`);
    }
    if (values.out === undefined && values.post !== true) out(text);
    return 0;
  },
};

function orgOf(values: Readonly<Record<string, string | boolean | undefined>>): string {
  const orgId = required(values, 'org');
  const problem = idProblem(orgId);
  if (problem) throw new UsageError(`--org ${problem}`);
  return orgId;
}

/** Read as the console's export reads `from` and `to` (a time without an offset is UTC). */
function time(value: string | undefined, name: string): Date | undefined {
  if (value === undefined) return undefined;
  const at = parseIsoInstant(value);
  if (!at) throw new UsageError(`--${name} must be an ISO 8601 time, got "${value}"`);
  return at;
}
