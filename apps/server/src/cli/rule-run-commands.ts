import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { GetLiveEntitiesQuery, parseCandidateRule, parseIsoInstant } from '#warden/catalog';
import { environment } from '#warden/platform';
import { ProjectionHost } from '#warden/storage';
import { BacktestRuleCommand, RetroactRuleCommand, type RunReport } from '#warden/rules';
import { formatProblems } from './apply-command.js';
import { type AppCommand, cliContext, UsageError } from './cli-command.js';
import { parseSharedOptions, required, type SharedOptions } from './command-options.js';
import { readRegularFile } from './regular-file.js';

export const retroactCommand: AppCommand = {
  name: 'retroact',
  usage: '--org <orgId> --rule <ruleId> [--since <ISO time>]',
  description: 'runs a rule over the stored items, publishing its actions',
  async runInApp(args, app, out) {
    const options = parseSharedOptions(args);
    const org = required(options, 'org');
    await app.get(ProjectionHost).catchUp('catalog');
    const report = await app
      .get(CommandBus)
      .execute(new RetroactRuleCommand(required(options, 'rule'), since(options), { ...cliContext(org), actor: 'cli:retroact' }));
    out(formatRunReport('Retroaction', report));
    return 0;
  },
};

export const backtestCommand: AppCommand = {
  name: 'backtest',
  usage: '--org <orgId> --rule-file <file> [--since <ISO time>]',
  description: 'runs a candidate rule over the stored items, reporting only',
  async runInApp(args, app, out, { err }) {
    const options = parseSharedOptions(args);
    const org = required(options, 'org');
    const file = required(options, 'rule-file');
    await app.get(ProjectionHost).catchUp('catalog');
    const queries = app.get(QueryBus);
    const [itemTypes, policies, actions, textBanks, hashBanks] = await Promise.all([
      queries.execute(new GetLiveEntitiesQuery(org, 'itemType')),
      queries.execute(new GetLiveEntitiesQuery(org, 'policy')),
      queries.execute(new GetLiveEntitiesQuery(org, 'action')),
      queries.execute(new GetLiveEntitiesQuery(org, 'textBank')),
      queries.execute(new GetLiveEntitiesQuery(org, 'hashBank')),
    ]);
    let text: string;
    try {
      // A device or a FIFO named by mistake is refused, not read until memory runs out or for ever.
      text = readRegularFile(file);
    } catch (error) {
      err(`cannot read ${file}: ${error instanceof Error ? error.message : String(error)}`);
      return 1;
    }
    const parsed = parseCandidateRule(text, { orgId: org, itemTypes, policies, actions, textBanks, hashBanks }, environment());
    if (!parsed.ok) {
      err(formatProblems(file, parsed.problems, 'nothing was run'));
      return 1;
    }
    const report = await app.get(CommandBus).execute(new BacktestRuleCommand(parsed.rule, since(options), cliContext(org)));
    out(formatRunReport('Backtest (nothing recorded or published)', report));
    return 0;
  },
};

function formatRunReport(title: string, r: RunReport): string {
  return [
    `${title} of rule ${r.ruleId}: ${r.scanned} item(s) scanned, ${r.matched} matched, ${r.unknown} unknown, ` +
      `${r.actionsPublished} action(s) published, in ${r.milliseconds} ms`,
    ...r.examples.map((e) => `  matched ${e.typeId}/${e.id} (version ${e.version})`),
  ].join('\n');
}

/** `--since`, read as audit export reads a time (parseIsoInstant): a time without an offset is UTC, not the machine's local time. */
export function since(options: SharedOptions): Date | undefined {
  if (options.since === undefined) return undefined;
  // A date alone is that day's start, UTC.
  const at = parseIsoInstant(/^\d{4}-\d{2}-\d{2}$/.test(options.since) ? `${options.since}T00:00:00Z` : options.since);
  if (at === undefined) throw new UsageError(`--since must be an ISO 8601 time, got "${options.since}"`);
  return at;
}
