import { auditVerifyCommand } from './audit-verify-command.js';
import type { Out } from './cli-command.js';
import { commandUsage, startsWith } from './command-usage.js';
import { runReporting, stderr, stdout } from './run-command.js';

/**
 * The commands that need none of the application: `audit verify`, an auditor's check of an export
 * file. cli.ts loads this instead of run-cli.ts for them, so a verification does not pay for
 * loading Nest, the stores and every module (most of a CLI call's time: docs/testing.md).
 */
export const OFFLINE_COMMANDS = [auditVerifyCommand];

/** Runs `argv` if it names an offline command (as run-cli's table would find it); otherwise undefined. */
export async function runOffline(argv: string[], out: Out = stdout, err: Out = stderr): Promise<number | undefined> {
  const command = OFFLINE_COMMANDS.find((c) => startsWith(argv, c.name.split(' ')));
  if (command === undefined) return undefined;
  const args = argv.slice(command.name.split(' ').length);
  return runReporting(
    () => command.run(args, out, err),
    () => commandUsage(command),
    err,
  );
}
