import { basename, dirname, extname, isAbsolute, resolve } from 'node:path';
import { CommandBus } from '@nestjs/cqrs';
import { ApplyConfigurationCommand, type ApplyReport, type ConfigProblem, parseOrgConfig, problemCount } from '#warden/catalog';
import type { OrgConfig } from '#warden/catalog';
import { ApplyUsersCommand, type UsersApplyReport } from '#warden/identity';
import { DomainError } from '#warden/kernel';
import { environment, WARDEN_CONFIG, type WardenConfig } from '#warden/platform';
import { type AppCommand, cliContext, UsageError } from './cli-command.js';
import { parseCommandArgs } from './command-options.js';
import { readRegularFile, readRegularFileBytes } from './regular-file.js';

export const applyCommand: AppCommand = {
  name: 'apply',
  usage: '<file> [--dry-run] [--prune]',
  description: 'brings an organization to a YAML/JSON configuration file (see configuration-as-code.md)',
  async runInApp(args, app, out, { err }) {
    const { values, positionals } = parseCommandArgs(args, { 'dry-run': { type: 'boolean' }, prune: { type: 'boolean' } }, true);
    if (positionals.length !== 1) throw new UsageError('apply takes one file');
    const file = positionals[0]!;
    const parsed = readConfigFile(file, environment());
    if (!parsed.ok) {
      err(formatProblems(file, parsed.problems));
      return 1;
    }
    const options = { prune: values.prune ?? false, dryRun: values['dry-run'] ?? false };
    // The name without its directory: it is shown in the console and in refusals, where a local path means nothing.
    const source = { ...options, file: basename(file) };
    const context = cliContext(parsed.config.org.id);
    const commands = app.get(CommandBus);
    const users = (plan: { dryRun: boolean }) =>
      commands.execute(new ApplyUsersCommand(parsed.config.org.id, parsed.config.users, { ...options, ...plan }, context));
    // The users are planned first, so a problem with them (an address of another organization)
    // stops apply before anything is written; the organization may not exist before the catalog step.
    const planned = await refusalsAsProblems(() => users({ dryRun: true }));
    if (!planned.ok) {
      err(formatProblems(file, planned.problems));
      return 1;
    }
    // The catalog step refuses what only the stored state shows (a bank's hashType changed under
    // imported hashes) before it writes anything: reported as the file's problems too.
    const applied = await refusalsAsProblems(() => commands.execute(new ApplyConfigurationCommand(parsed.config, source, context)));
    if (!applied.ok) {
      err(formatProblems(file, applied.problems));
      return 1;
    }
    const report = applied.value;
    const usersReport = await users({ dryRun: options.dryRun });
    const config = app.get<WardenConfig>(WARDEN_CONFIG);
    // Without a broker here the prefix is still known when set (it is checked whatever the URL).
    const prefix = config.inboundTopic?.subjectPrefix ?? environment()['WARDEN_NATS_SUBJECT_PREFIX'];
    out(formatReport(report, usersReport, prefix, config.inboundTopic !== undefined));
    return 0;
  },
};

/**
 * A step's answer, or its refusals (pointers like `/users/3/email`) as file problems
 * (`users[3].email`).
 */
async function refusalsAsProblems<T>(step: () => Promise<T>): Promise<{ ok: true; value: T } | { ok: false; problems: ConfigProblem[] }> {
  try {
    return { ok: true, value: await step() };
  } catch (error) {
    if (!(error instanceof DomainError) || error.kind !== 'invalid-user-input') throw error;
    const problems = error.details.map((d) => ({
      path: (d.pointer ?? '')
        .split('/')
        .slice(1)
        .map((s, i) => (i > 0 && /^\d+$/.test(s) ? `[${s}]` : i > 0 ? `.${s}` : s))
        .join(''),
      message: d.detail ?? d.title,
    }));
    return { ok: false, problems };
  }
}

const UTF8 = new TextDecoder('utf-8', { fatal: true });

/** Reads and validates a configuration file; hashesFile paths are relative to it. */
export function readConfigFile(
  file: string,
  env: Readonly<Record<string, string | undefined>>,
): { ok: true; config: OrgConfig } | { ok: false; problems: ConfigProblem[] } {
  let bytes: Buffer;
  try {
    bytes = readRegularFileBytes(file);
  } catch (error) {
    return { ok: false, problems: [{ path: '', message: `cannot read ${file}: ${(error as Error).message}` }] };
  }
  let text: string;
  try {
    // Fatal: bytes that are not UTF-8 (a Latin-1 file) would otherwise become U+FFFD in names,
    // patterns and header values without a word. The decoder drops a leading byte-order mark.
    text = UTF8.decode(bytes);
  } catch {
    return { ok: false, problems: [{ path: '', message: `${file} is not UTF-8 text: save it as UTF-8` }] };
  }
  const base = dirname(resolve(file));
  const result = parseOrgConfig(text, {
    format: extname(file).toLowerCase() === '.json' ? 'json' : 'yaml',
    env,
    readHashesFile: (path) => readRegularFile(isAbsolute(path) ? path : resolve(base, path)),
  });
  return result.ok ? { ok: true, config: result.config } : { ok: false, problems: result.problems };
}

export function formatProblems(file: string, problems: readonly ConfigProblem[], outcome = 'nothing was applied'): string {
  return [`${file}: ${problemCount(problems)} problem(s); ${outcome}:`, ...problems.map((p) => `  ${p.path === '' ? '(file)' : p.path}: ${p.message}`)].join(
    '\n',
  );
}

const KIND_LABEL: Record<string, string> = {
  itemType: 'item type',
  policy: 'policy',
  action: 'action',
  textBank: 'text bank',
  hashBank: 'hash bank',
  rule: 'rule',
  queue: 'queue',
  routingRule: 'routing rule',
  appealRoutingRule: 'appeal routing rule',
  user: 'user',
};

const SETTINGS_LABEL: Record<string, string> = {
  settings: 'organization settings',
  strikes: 'strike settings',
  appeals: 'appeal settings',
  sso: 'SSO settings',
  scores: 'score settings',
  inboundTopic: 'inbound topic settings',
  partialItems: 'partial-items endpoint',
  transparency: 'transparency settings',
  management: 'management settings',
};

/** The apply report for people: what changed, what was left alone, and how many events. */
export function formatReport(report: ApplyReport, users?: UsersApplyReport, subjectPrefix?: string, broker = subjectPrefix !== undefined): string {
  const lines: string[] = [];
  const verb = report.dryRun ? 'would be' : 'was';
  if (report.dryRun) lines.push('Dry run: nothing is written.');
  if (report.organization.created) lines.push(`Organization ${report.orgId} ${verb} created.`);
  if (report.organization.renamed) lines.push(`Organization ${report.orgId} ${verb} renamed.`);
  // With the users step's report, its lines speak for the users (the accounts), not the catalog's entries.
  const shown = (entries: Array<{ kind: string; id: string }>) => (users ? entries.filter((e) => e.kind !== 'user') : entries);
  const list = (label: string, entries: Array<{ kind: string; id: string }>) => {
    for (const e of shown(entries)) lines.push(`${label} ${KIND_LABEL[e.kind] ?? e.kind} ${e.id}`);
  };
  list(report.dryRun ? 'would create' : 'created', report.created);
  list(report.dryRun ? 'would update' : 'updated', report.updated);
  list(report.dryRun ? 'would archive' : 'archived', report.archived);
  for (const section of report.settingsChanged) {
    const what = section === 'inboundTopic' ? `: ${inboundTopicLine(report, subjectPrefix, broker)}` : '';
    lines.push(`${report.dryRun ? 'would change' : 'changed'} ${SETTINGS_LABEL[section] ?? section}${what}`);
  }
  for (const h of report.hashes) lines.push(`hash bank ${h.bankId}: +${h.added} -${h.removed} hashes`);
  for (const e of shown(report.leftAlone)) {
    lines.push(`left alone ${KIND_LABEL[e.kind] ?? e.kind} ${e.id} (not in the file; --prune archives it)`);
  }
  lines.push(...driftLines(report));
  if (users) lines.push(...usersLines(users, report.dryRun));
  for (const warning of report.warnings) lines.push(`warning: ${warning}`);
  const usersChanged = users ? users.created.length + users.updated.length + users.disabled.length : 0;
  const changed = report.created.length + report.updated.length + report.archived.length + report.settingsChanged.length + report.hashes.length + usersChanged;
  if (changed === 0 && !report.organization.created && !report.organization.renamed) {
    lines.push(`No changes: the stored configuration of ${report.orgId} already matches the file.`);
  } else if (!report.dryRun) {
    lines.push(`Applied to ${report.orgId}: ${report.eventsAppended} event(s) appended.`);
  }
  return lines.join('\n');
}

/**
 * What the organization's `inboundTopic:` comes to: its subject is derived (docs/inbound-topic.md),
 * from this deployment's prefix when it is known here (a broker configured, or the prefix set).
 */
function inboundTopicLine(report: ApplyReport, subjectPrefix: string | undefined, broker: boolean): string {
  const subject = `${subjectPrefix ?? '<WARDEN_NATS_SUBJECT_PREFIX>'}.${report.orgId}.items`;
  const state = report.inboundTopic.enabled ? `enabled, items taken from ${subject}` : `disabled, messages on ${subject} dead-lettered (403)`;
  return broker ? state : `${state} (no broker configured here: WARDEN_NATS_URL is not set)`;
}

const DRIFT_OUTCOME: Record<'overwrite' | 'archive' | 'leave', [done: string, planned: string]> = {
  overwrite: ['overwritten with the file', 'would be overwritten with the file'],
  archive: ['archived (not in the file, --prune)', 'would be archived (not in the file, --prune)'],
  leave: ['left as the console set it', 'would be left as the console set it'],
};

/** Changes made outside the file (the console) since the file last defined them, and what apply does to them. */
function driftLines(report: ApplyReport): string[] {
  return report.drift.map((d) => {
    const what = d.kind === 'sso' ? 'SSO settings' : `queue ${d.id}`;
    const outcome = DRIFT_OUTCOME[d.outcome][report.dryRun ? 1 : 0];
    const why = d.outcome === 'leave' && d.kind === 'queue' ? leaveReason(report, d.id) : d.outcome === 'leave' ? ' (management.sso: console)' : '';
    return `drift: ${what} changed in the console; ${outcome}${why}`;
  });
}

const leaveReason = (report: ApplyReport, queueId: string): string =>
  report.leftAlone.some((e) => e.kind === 'queue' && e.id === queueId) ? ' (not in the file; --prune archives it)' : ' (management.queues: console)';

/** What the users step did to the organization's dashboard accounts. */
function usersLines(users: UsersApplyReport, dryRun: boolean): string[] {
  const would = (done: string, planned: string) => (dryRun ? planned : done);
  return [
    ...users.created.map(
      (e) =>
        `${would('created', 'would create')} user ${e} (invited, no password yet: \`warden user set-password\`, or send them \`warden user invite\`'s link)`,
    ),
    ...users.updated.map((e) => `${would('changed', 'would change')} the roles of user ${e}`),
    ...users.disabled.map((e) => `${would('disabled', 'would disable')} user ${e}`),
    ...users.leftAlone.map((e) => `left alone user ${e} (not in the file; --prune disables it)`),
    ...users.stillDisabled.map((e) => `user ${e} is disabled; apply sets roles only and does not enable it`),
  ];
}
