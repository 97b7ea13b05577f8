import 'reflect-metadata';
import { loadConfig } from '#warden/platform';
import { withApp } from './app-context.js';
import { type Out, UsageError } from './cli-command.js';
import { runReporting, stderr, stdout } from './run-command.js';
import { findCommand, unknownCommandMessage, usageText } from './command-table.js';
import { commandUsage } from './command-usage.js';

/**
 * Runs one CLI command; returns the process exit code: 0 done, 1 an error (one line on stderr),
 * 2 a usage error (the message, then how to use the command).
 */
export async function runCli(argv: string[], out: Out = stdout, err: Out = stderr): Promise<number> {
  if (argv.length === 0) {
    out(usageText());
    return 2;
  }
  const found = findCommand(argv[0] === '--help' ? ['help', ...argv.slice(1)] : argv);
  return runReporting(
    async () => {
      if (found === undefined) throw new UsageError(unknownCommandMessage(argv));
      const { command, args } = found;
      if ('run' in command) return await command.run(args, out, err);
      return await withApp(loadConfig(), (app) => command.runInApp(args, app, out, { err }));
    },
    () => (found === undefined ? usageText() : commandUsage(found.command)),
    err,
  );
}
