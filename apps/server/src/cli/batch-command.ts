import type { INestApplicationContext } from '@nestjs/common';
import { loadConfig } from '#warden/platform';
import { withApp } from './app-context.js';
import { type CliCommand, type Input, type Out, UsageError } from './cli-command.js';
import { commandUsage } from './command-usage.js';
import { readStdin, runReporting } from './run-command.js';

/** One command of a batch: its arguments as `warden` takes them, and what it reads as standard input. */
export interface BatchEntry {
  /** The script's line it came from (1-based), for the messages and the report. */
  readonly line: number;
  readonly args: readonly string[];
  readonly input: string | undefined;
}

/** What each command of a batch did: one JSON object a line on stdout (docs/cli.md, "Batches"). */
export interface BatchReport {
  readonly line: number;
  readonly exit: number;
  readonly out: readonly string[];
  readonly error: string | null;
}

type Find = (argv: readonly string[]) => { command: CliCommand; args: string[] } | undefined;
/** What the CLI says of arguments that name no command (command-table's unknownCommandMessage). */
type Unknown = (argv: readonly string[]) => string;

/**
 * The script's commands: one a line, a JSON array of arguments or `{"args": […], "input": "…"}`;
 * blank lines skipped. Checked whole before anything runs: a line that is not such a value, names
 * no command (or `batch` itself), or gives an `input` to a command that reads none (or none to one
 * that reads it) is a usage error naming the line, and nothing is run. A command's options are
 * checked when it runs, as alone.
 */
export function parseBatch(script: string, find: Find, unknown: Unknown): BatchEntry[] {
  const entries: BatchEntry[] = [];
  // A byte-order mark (an editor's on another system) is not part of the first line's JSON.
  for (const [index, text] of script
    .replace(/^\uFEFF/, '')
    .split('\n')
    .entries()) {
    if (text.trim() === '') continue;
    const line = index + 1;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      throw new UsageError(`Line ${line} is not JSON: give a command as a JSON array of its arguments, or as {"args": [...], "input": "..."}`);
    }
    const { args, input } = Array.isArray(value) ? { args: value as unknown[], input: undefined as unknown } : entryFields(value, line);
    if (args.length === 0 || !args.every((a): a is string => typeof a === 'string')) {
      throw new UsageError(`Line ${line}: the arguments must be a non-empty array of strings`);
    }
    if (input !== undefined && typeof input !== 'string') throw new UsageError(`Line ${line}: "input" must be a string`);
    const found = find(args);
    if (found === undefined) throw new UsageError(`Line ${line}: ${unknown(args)}`);
    if (found.command.name === 'batch') throw new UsageError(`Line ${line}: a batch cannot run another batch`);
    // An input no command reads would be dropped without a word (a password meant for a user
    // created without one); a command that reads one finds nothing else in a batch.
    const reads = 'runInApp' in found.command && found.command.readsInput?.(found.args) === true;
    if (input !== undefined && !reads)
      throw new UsageError(`Line ${line}: ${found.command.name} reads no input${found.command.name === 'user create' ? ' (without --with-password)' : ''}`);
    if (input === undefined && reads) throw new UsageError(`Line ${line}: ${found.command.name} reads a password: give it as the entry's "input"`);
    entries.push({ line, args, input });
  }
  return entries;
}

function entryFields(value: unknown, line: number): { args: unknown[]; input: unknown } {
  if (typeof value !== 'object' || value === null) throw new UsageError(`Line ${line}: a command is a JSON array or an object with "args"`);
  const { args, input, ...rest } = value as { args?: unknown; input?: unknown };
  const unknown = Object.keys(rest);
  if (unknown.length > 0) throw new UsageError(`Line ${line}: unknown field ${JSON.stringify(unknown[0])} (a command has "args" and "input")`);
  if (!Array.isArray(args)) throw new UsageError(`Line ${line}: "args" must be an array of strings`);
  return { args, input };
}

/**
 * Runs the entries in order in one process, and one application context opened before the first
 * command when any needs the stores: a provisioning script of many commands costs one start-up
 * (docs/testing.md, "What the suite costs"). Each command is its own all-or-nothing, as on its
 * own; the batch stops at the first that fails and exits with its code. Reports each command run.
 */
export async function runBatch(entries: readonly BatchEntry[], find: Find, report: (r: BatchReport) => void): Promise<number> {
  // Looked up once: the checks (parseBatch) found every entry's command already.
  const resolved = entries.map((entry) => ({ entry, ...find(entry.args)! }));
  const runAll = async (app: INestApplicationContext | undefined): Promise<number> => {
    for (const { entry, command, args } of resolved) {
      const out: string[] = [];
      const errors: string[] = [];
      // The batch's own standard input is the script: a command reads only what its entry gives.
      const input: Input = async () => entry.input ?? '';
      const exit = await runReporting(
        () =>
          'run' in command
            ? command.run(
                args,
                (l) => out.push(l),
                (l) => errors.push(l),
              )
            : command.runInApp(args, app!, (l) => out.push(l), { err: (l) => errors.push(l), input }),
        () => commandUsage(command),
        (l) => errors.push(l),
      );
      report({ line: entry.line, exit, out, error: errors.length > 0 ? errors.join('\n') : null });
      if (exit !== 0) return exit;
    }
    return 0;
  };
  const needsApp = resolved.some(({ command }) => !('run' in command));
  return needsApp ? withApp(loadConfig(), runAll) : runAll(undefined);
}

/** The `batch` command's body: the script from standard input, one JSON report a line on stdout. */
export async function batchFromStdin(args: string[], out: Out, find: Find, unknown: Unknown): Promise<number> {
  if (args.length > 0) throw new UsageError('batch takes no arguments: its commands come on standard input');
  // Typed at a terminal, a script's passwords would be echoed as they are typed.
  if (process.stdin.isTTY) throw new UsageError('batch reads its commands from a pipe or a file: `warden batch < script.ndjson`');
  const entries = parseBatch(await readStdin(), find, unknown);
  return runBatch(entries, find, (r) => out(JSON.stringify(r)));
}
