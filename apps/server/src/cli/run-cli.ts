import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import type { INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { rebuildReadModels } from '../../../../libs/eventstore/src/index.js';
import {
  CreateApiKeyCommand,
  CreateOrganizationCommand,
  ListApiKeysQuery,
  RevokeApiKeyCommand,
  RotateApiKeyCommand,
} from '../../../../libs/identity/src/index.js';
import { ApplyConfigurationCommand, CatalogReader, parseCandidateRule } from '../../../../libs/catalog/src/index.js';
import { BacktestRuleCommand, RetroactRuleCommand, type RunReport } from '../../../../libs/rules/src/index.js';
import { DomainError, type CommandContext } from '../../../../libs/kernel/src/index.js';
import {
  ConfigError,
  createRootLogger,
  environment,
  loadConfig,
  openStorage,
  PinoNestLogger,
  ProjectionHost,
  STORAGE,
  type Storage,
} from '../../../../libs/platform/src/index.js';
import { AppModule } from '../app.module.js';
import { generateOpenApiDocument } from '../openapi-document.js';
import { formatProblems, formatReport, readConfigFile } from './apply-command.js';
import { runBankImport, runHashCommand } from './hashing-commands.js';
import { CALLBACKS_USAGE, runCallbacksCommand } from './callbacks-commands.js';
import { formatTable } from './format-table.js';

const USAGE = `Usage: npm run warden -- <command> [options]

  org create --id <orgId> --name <name>
  api-key create --org <orgId> [--name <name>] [--team <team>]   prints the key once, alone on the last line
  api-key list --org <orgId>
  api-key rotate --org <orgId> --key <keyId>                      prints the new key on the last line
  api-key revoke --org <orgId> --key <keyId>
  bank import --org <orgId> --bank <bankId> <file>                adds hashes (one hex hash per line) to a configured bank
  hash <file-or-url>...                                           prints <pdq>,<quality>,<md5>,<sha256>,<input> per image
  apply <file> [--dry-run] [--prune]                              brings an organization to a YAML/JSON configuration file
  retroact --org <orgId> --rule <ruleId> [--since <ISO time>]     runs a rule over stored items, publishing its actions
  backtest --org <orgId> --rule-file <file> [--since <ISO time>]  runs a candidate rule over stored items, reporting only
  rebuild-read-models                                             drops every read model and replays the log
  openapi [--out <file>]                                          writes the OpenAPI document (stdout by default)
${CALLBACKS_USAGE}

Results go to stdout, logs to stderr. The data directory and stores come from the same
environment variables as the server (WARDEN_DATA_DIR, WARDEN_EVENTSTORE_URL, WARDEN_MONGO_URL).`;

class UsageError extends Error {}

type Out = (line: string) => void;

/** Runs one CLI command; returns the process exit code. */
export async function runCli(argv: string[], out: Out = (l) => process.stdout.write(l + '\n')): Promise<number> {
  const [group, action] = argv;
  try {
    if (!group || group === 'help' || group === '--help') {
      out(USAGE);
      return group ? 0 : 2;
    }
    if (group === 'hash') {
      if (argv.length < 2) throw new UsageError('hash takes one or more files or URLs');
      return await runHashCommand(argv.slice(1), loadConfig(), out);
    }
    if (group === 'openapi') {
      const { values } = parseArgs({ args: argv.slice(1), options: { out: { type: 'string' } } });
      const json = JSON.stringify(await generateOpenApiDocument(), null, 2) + '\n';
      if (values.out) {
        writeFileSync(values.out, json);
        out(`Wrote ${values.out}`);
      } else out(json.trimEnd());
      return 0;
    }
    const single = ['rebuild-read-models', 'apply', 'retroact', 'backtest'].includes(group);
    const command = single ? group : `${group} ${action ?? ''}`.trim();
    const rest = argv.slice(single ? 1 : 2);
    return await withApp((app) => dispatch(command, rest, app, out));
  } catch (error) {
    if (error instanceof UsageError) {
      process.stderr.write(`${error.message}\n\n${USAGE}\n`);
      return 2;
    }
    if (error instanceof ConfigError || error instanceof DomainError) {
      process.stderr.write(`Error: ${error.message}\n`);
      return 1;
    }
    process.stderr.write(`Error: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
}

async function withApp(run: (app: INestApplicationContext) => Promise<number>): Promise<number> {
  const config = loadConfig();
  const logger = createRootLogger(config.logLevel === 'info' ? 'warn' : config.logLevel);
  const storage = await openStorage(config);
  const app = await NestFactory.createApplicationContext(
    AppModule.forRoot(config, storage, { http: false, background: false }),
    { logger: new PinoNestLogger(logger), abortOnError: false },
  );
  try {
    return await run(app);
  } finally {
    await app.close();
    await storage.close();
  }
}

async function dispatch(command: string, args: string[], app: INestApplicationContext, out: Out): Promise<number> {
  const handled = await runCallbacksCommand(command, args, app, out);
  if (handled !== undefined) return handled;
  const commands = app.get(CommandBus);
  const queries = app.get(QueryBus);
  const options = command === 'apply' ? {} : parse(args, command === 'bank import');
  const context = (orgId: string): CommandContext => ({ orgId, correlationId: randomUUID(), actor: 'cli' });
  switch (command) {
    case 'org create': {
      const id = required(options, 'id');
      const org = await commands.execute(new CreateOrganizationCommand(id, required(options, 'name'), context(id)));
      out(`Created organization ${org.orgId} (${org.name})`);
      return 0;
    }
    case 'api-key create': {
      const org = required(options, 'org');
      const created = await commands.execute(
        new CreateApiKeyCommand(org, options.name ?? null, options.team ?? null, context(org)),
      );
      out(`Created API key ${created.keyId} for organization ${org}. Store it now; it is not shown again:`);
      out(created.key);
      return 0;
    }
    case 'api-key list': {
      const keys = await queries.execute(new ListApiKeysQuery(required(options, 'org')));
      out(
        formatTable(
          ['id', 'name', 'team', 'prefix', 'status', 'created', 'last used'],
          keys.map((k) => [k.id, k.name ?? '', k.team ?? '', k.prefix, k.status, k.createdAt, k.lastUsedAt ?? 'never']),
        ),
      );
      return 0;
    }
    case 'api-key rotate': {
      const org = required(options, 'org');
      const key = required(options, 'key');
      const created = await commands.execute(new RotateApiKeyCommand(org, key, context(org)));
      out(`Rotated API key ${key}: it no longer works. New key ${created.keyId}; store it now, it is not shown again:`);
      out(created.key);
      return 0;
    }
    case 'api-key revoke': {
      const org = required(options, 'org');
      const key = required(options, 'key');
      await commands.execute(new RevokeApiKeyCommand(org, key, context(org)));
      out(`Revoked API key ${key}`);
      return 0;
    }
    case 'apply': {
      const { values, positionals } = parseApplyArgs(args);
      if (positionals.length !== 1) throw new UsageError('apply takes one file');
      const file = positionals[0]!;
      const parsed = readConfigFile(file, environment());
      if (!parsed.ok) {
        process.stderr.write(formatProblems(file, parsed.problems) + '\n');
        return 1;
      }
      const report = await commands.execute(
        new ApplyConfigurationCommand(
          parsed.config,
          { prune: values.prune ?? false, dryRun: values['dry-run'] ?? false },
          context(parsed.config.org.id),
        ),
      );
      out(formatReport(report));
      return 0;
    }
    case 'bank import': {
      const org = required(options, 'org');
      const [file] = positionalsOf(args);
      if (!file) throw new UsageError('bank import takes a file of hashes');
      return runBankImport({ org, bank: required(options, 'bank'), file }, app, out, context(org));
    }
    case 'retroact': {
      const org = required(options, 'org');
      await app.get(ProjectionHost).catchUp('catalog');
      const report = await commands.execute(
        new RetroactRuleCommand(required(options, 'rule'), since(options), { ...context(org), actor: 'cli:retroact' }),
      );
      out(formatRunReport('Retroaction', report));
      return 0;
    }
    case 'backtest': {
      const org = required(options, 'org');
      const file = required(options, 'rule-file');
      await app.get(ProjectionHost).catchUp('catalog');
      const reader = app.get(CatalogReader);
      const [itemTypes, policies, actions, textBanks, hashBanks] = await Promise.all([
        reader.liveEntities(org, 'itemType'),
        reader.liveEntities(org, 'policy'),
        reader.liveEntities(org, 'action'),
        reader.liveEntities(org, 'textBank'),
        reader.liveEntities(org, 'hashBank'),
      ]);
      const parsed = parseCandidateRule(readFileSync(file, 'utf8'), { orgId: org, itemTypes, policies, actions, textBanks, hashBanks }, environment());
      if (!parsed.ok) {
        process.stderr.write(formatProblems(file, parsed.problems) + '\n');
        return 1;
      }
      const report = await commands.execute(new BacktestRuleCommand(parsed.rule, since(options), context(org)));
      out(formatRunReport('Backtest (nothing recorded or published)', report));
      return 0;
    }
    case 'rebuild-read-models': {
      const storage = app.get<Storage>(STORAGE);
      const projections = app.get(ProjectionHost).projections().filter((p) => !p.reactor);
      const started = Date.now();
      await rebuildReadModels(projections, storage.events, storage.readStore);
      out(`Rebuilt ${projections.length} projection(s) (${projections.map((p) => p.name).join(', ')}) in ${Date.now() - started} ms`);
      return 0;
    }
    default:
      throw new UsageError(`Unknown command: ${command}`);
  }
}

function parse(args: string[], allowPositionals = false): Record<string, string | undefined> {
  try {
    const { values } = parseArgs({
      args,
      allowPositionals,
      options: {
        id: { type: 'string' },
        name: { type: 'string' },
        org: { type: 'string' },
        team: { type: 'string' },
        key: { type: 'string' },
        rule: { type: 'string' },
        'rule-file': { type: 'string' },
        since: { type: 'string' },
        bank: { type: 'string' },
      },
      strict: true,
    });
    return values;
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
}

/** The non-option arguments of a command (files). */
function positionalsOf(args: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    if (args[i]!.startsWith('--')) i++;
    else out.push(args[i]!);
  }
  return out;
}

function since(options: Record<string, string | undefined>): Date | undefined {
  if (options.since === undefined) return undefined;
  const at = new Date(options.since);
  if (Number.isNaN(at.getTime())) throw new UsageError(`--since must be an ISO 8601 time, got "${options.since}"`);
  return at;
}

function formatRunReport(title: string, r: RunReport): string {
  return [
    `${title} of rule ${r.ruleId}: ${r.scanned} item(s) scanned, ${r.matched} matched, ${r.unknown} unknown, ` +
      `${r.actionsPublished} action(s) published, in ${r.milliseconds} ms`,
    ...r.examples.map((e) => `  matched ${e.typeId}/${e.id} (version ${e.version})`),
  ].join('\n');
}

function parseApplyArgs(args: string[]) {
  try {
    return parseArgs({
      args,
      options: { 'dry-run': { type: 'boolean' }, prune: { type: 'boolean' } },
      allowPositionals: true,
      strict: true,
    });
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
}

function required(options: Record<string, string | undefined>, name: string): string {
  const v = options[name];
  if (v === undefined || v.trim() === '') throw new UsageError(`Missing --${name}`);
  return v;
}
