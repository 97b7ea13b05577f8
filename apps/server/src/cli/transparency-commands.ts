import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { QueryBus } from '@nestjs/cqrs';
import { DomainError, idProblem } from '#warden/kernel';
import { ListStatementsQuery, reportCsv, type StatementView, TransparencyReportQuery } from '#warden/transparency';
import { type AppCommand, UsageError } from './cli-command.js';

/** The operator's CLI writes every statement, a child-safety decision's included: they are what the Transparency Database gets. */
const EVERY_STATEMENT = ['VIEW_CHILD_SAFETY_DATA'] as const;
import { parseCommandArgs, required } from './command-options.js';
import { formatTable } from './format-table.js';

const PAGE = 1000;

function orgOf(values: Readonly<Record<string, string | boolean | undefined>>): string {
  const orgId = required(values, 'org');
  const problem = idProblem(orgId);
  if (problem) throw new UsageError(`--org ${problem}`);
  return orgId;
}

/** A bad period is the user's to fix: said as a usage error, with the parameter it concerns. */
async function asUsage<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof DomainError && error.kind === 'invalid-user-input') {
      throw new UsageError(error.details.map((d) => `--${(d.pointer ?? '').replace(/^\//, '')}: ${d.detail ?? d.title}`).join('; '));
    }
    throw error;
  }
}

export const transparencyStatementsCommand: AppCommand = {
  name: 'transparency statements',
  usage: '--org <orgId> [--from <YYYY-MM-DD>] [--to <YYYY-MM-DD>] [--out <file.ndjson>]',
  description:
    "the organization's DSA statements of reasons of the period (UTC days), one a line in the Transparency Database's submission format (docs/transparency.md); " +
    'statements the DSA mapping cannot complete are counted on stderr, not written',
  async runInApp(args, app, out, { err }) {
    const { values } = parseCommandArgs(args, { org: { type: 'string' }, from: { type: 'string' }, to: { type: 'string' }, out: { type: 'string' } });
    const orgId = orgOf(values);
    const queries = app.get(QueryBus);
    const file = values.out ? createWriteStream(values.out) : undefined;
    let written = 0;
    const incomplete = new Map<string, number>();
    const submission = new Map<string, number>();
    let cursor: string | undefined;
    do {
      const page = await asUsage(() => queries.execute(new ListStatementsQuery(orgId, values.from, values.to, PAGE, cursor, EVERY_STATEMENT)));
      for (const view of page.statements) {
        submission.set(view.submission.state, (submission.get(view.submission.state) ?? 0) + 1);
        if (view.statement === null) {
          for (const problem of view.problems) incomplete.set(problem, (incomplete.get(problem) ?? 0) + 1);
          continue;
        }
        const line = JSON.stringify(view.statement);
        written++;
        if (!file) out(line);
        else if (!file.write(`${line}\n`)) await once(file, 'drain');
      }
      cursor = page.nextCursor ?? undefined;
    } while (cursor !== undefined);
    if (file) {
      file.end();
      await once(file, 'finish');
      out(`Wrote ${written} statement(s) of ${orgId} to ${values.out}`);
    }
    for (const [problem, count] of incomplete) err(`incomplete: ${count} statement(s): ${problem}`);
    if (submission.size > 0 && !submission.has('off')) {
      err(`submission to the Transparency Database: ${[...submission].map(([state, n]) => `${n} ${state}`).join(', ')}`);
    }
    return 0;
  },
};

/** Pages of the period's statements, oldest first. */
async function* statementViews(queries: QueryBus, orgId: string, from: string | undefined, to: string | undefined): AsyncGenerator<StatementView> {
  let cursor: string | undefined;
  do {
    const page = await asUsage(() => queries.execute(new ListStatementsQuery(orgId, from, to, PAGE, cursor, EVERY_STATEMENT)));
    yield* page.statements;
    cursor = page.nextCursor ?? undefined;
  } while (cursor !== undefined);
}

export const transparencySubmissionsCommand: AppCommand = {
  name: 'transparency submissions',
  usage: '--org <orgId> [--from <YYYY-MM-DD>] [--to <YYYY-MM-DD>] [--json]',
  description:
    'each statement of reasons of the period with its submission to the DSA Transparency Database: state (off, incomplete, unsent, pending, retrying, submitted, rejected, abandoned), ' +
    'attempts, and the last error (docs/transparency.md)',
  async runInApp(args, app, out) {
    const { values } = parseCommandArgs(args, { org: { type: 'string' }, from: { type: 'string' }, to: { type: 'string' }, json: { type: 'boolean' } });
    const orgId = orgOf(values);
    const rows: string[][] = [];
    for await (const view of statementViews(app.get(QueryBus), orgId, values.from, values.to)) {
      const s = view.submission;
      if (values.json) {
        out(JSON.stringify({ puid: view.puid, decidedAt: view.decidedAt, actionId: view.actionId, ...s }));
        continue;
      }
      rows.push([view.puid, view.decidedAt, view.actionId, s.state, String(s.attempts), s.submittedAt ?? s.nextAttemptAt ?? '', s.lastError ?? '']);
    }
    if (!values.json) out(formatTable(['PUID', 'DECIDED', 'ACTION', 'STATE', 'ATTEMPTS', 'SUBMITTED/NEXT', 'LAST ERROR'], rows));
    return 0;
  },
};

export const transparencyReportCommand: AppCommand = {
  name: 'transparency report',
  usage: '--org <orgId> [--from <YYYY-MM-DD>] [--to <YYYY-MM-DD>] [--format json|csv]',
  description:
    "the organization's DSA transparency report of the period (UTC days): JSON (default) or CSV (columns section, policy, category, source, automated_detection, automated_decision, reporter_type, figure, value; docs/transparency.md)",
  async runInApp(args, app, out) {
    const { values } = parseCommandArgs(args, { org: { type: 'string' }, from: { type: 'string' }, to: { type: 'string' }, format: { type: 'string' } });
    const orgId = orgOf(values);
    const format = values.format ?? 'json';
    if (format !== 'json' && format !== 'csv') throw new UsageError('--format must be json or csv');
    const report = await asUsage(() => app.get(QueryBus).execute(new TransparencyReportQuery(orgId, values.from, values.to)));
    out(format === 'json' ? JSON.stringify(report, null, 2) : reportCsv(report));
    return 0;
  },
};
