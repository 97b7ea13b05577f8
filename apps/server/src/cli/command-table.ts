import { applyCommand } from './apply-command.js';
import { auditAnchorCommand, auditExportCommand } from './audit-commands.js';
import { auditVerifyCommand } from './audit-verify-command.js';
import {
  appealCallbackSendCommand,
  callbacksListCommand,
  callbacksRedeliverCommand,
  signingKeyListCommand,
  signingKeyRetireCommand,
  signingKeyRotateCommand,
} from './callbacks-commands.js';
import { batchFromStdin } from './batch-command.js';
import { type CliCommand, type StandaloneCommand, UsageError } from './cli-command.js';
import { PROGRAM, startsWith, synopsis } from './command-usage.js';
import { bankImportCommand, bankRemoveCommand, hashCommand } from './hashing-commands.js';
import { apiKeyCreateCommand, apiKeyListCommand, apiKeyRevokeCommand, apiKeyRotateCommand, orgCreateCommand } from './identity-commands.js';
import { openApiCommand, rebuildReadModelsCommand } from './maintenance-commands.js';
import { readModelsDigestCommand, replayCommand } from './replay-commands.js';
import { backtestCommand, retroactCommand } from './rule-run-commands.js';
import { transparencyReportCommand, transparencyStatementsCommand, transparencySubmissionsCommand } from './transparency-commands.js';
import { userCreateCommand, userDisableCommand, userInviteCommand, userListCommand, userSetPasswordCommand } from './user-commands.js';

const helpCommand: StandaloneCommand = {
  name: 'help',
  usage: '[<command>]',
  description: 'lists every command, or only those whose name starts with the words given',
  async run(args, out) {
    if (args.length === 0) {
      out(usageText());
      return 0;
    }
    const matching = COMMANDS.filter((command) => startsWith(args, command.name.split(' ')) || startsWith(command.name.split(' '), args));
    if (matching.length === 0) throw new UsageError(`Unknown command: ${args.join(' ')}`);
    out(matching.map(describe).join('\n'));
    return 0;
  },
};

const batchCommand: StandaloneCommand = {
  name: 'batch',
  usage: '< <commands.ndjson>',
  description:
    'runs the commands on standard input, one a line as a JSON array of arguments or {"args": [...], "input": "..."} (input: what the command reads, a password), ' +
    'in one process; prints one JSON line per command run ({"line", "exit", "out", "error"}) and stops at the first that fails, with its exit code',
  run: (args, out) => batchFromStdin(args, out, findCommand, unknownCommandMessage),
};

/** Every CLI command, in the order the help text lists them; adding a command is adding an entry. */
export const COMMANDS: readonly CliCommand[] = [
  orgCreateCommand,
  apiKeyCreateCommand,
  apiKeyListCommand,
  apiKeyRotateCommand,
  apiKeyRevokeCommand,
  bankImportCommand,
  bankRemoveCommand,
  hashCommand,
  applyCommand,
  retroactCommand,
  backtestCommand,
  rebuildReadModelsCommand,
  readModelsDigestCommand,
  replayCommand,
  openApiCommand,
  signingKeyListCommand,
  signingKeyRotateCommand,
  signingKeyRetireCommand,
  callbacksListCommand,
  callbacksRedeliverCommand,
  appealCallbackSendCommand,
  auditExportCommand,
  auditVerifyCommand,
  auditAnchorCommand,
  transparencyStatementsCommand,
  transparencyReportCommand,
  transparencySubmissionsCommand,
  userCreateCommand,
  userSetPasswordCommand,
  userDisableCommand,
  userListCommand,
  userInviteCommand,
  batchCommand,
  helpCommand,
];

/** The command the first words of `argv` name, and the arguments after them. */
export function findCommand(argv: readonly string[]): { command: CliCommand; args: string[] } | undefined {
  let found: CliCommand | undefined;
  for (const command of COMMANDS) {
    const words = command.name.split(' ');
    if (startsWith(argv, words) && (found === undefined || words.length > found.name.split(' ').length)) found = command;
  }
  return found && { command: found, args: argv.slice(found.name.split(' ').length) };
}

/** For an `argv` no command matches; names the subcommands when the first word is a command group. */
export function unknownCommandMessage(argv: readonly string[]): string {
  const [group] = argv;
  const subcommands = COMMANDS.filter((command) => command.name.startsWith(`${group} `)).map((command) => command.name.split(' ')[1]!);
  if (subcommands.length === 0) return `Unknown command: ${group}`;
  const choices = subcommands.length === 1 ? subcommands[0] : `${subcommands.slice(0, -1).join(', ')} or ${subcommands.at(-1)}`;
  return `Unknown command: ${argv.slice(0, 2).join(' ')} (${group} takes ${choices})`;
}

/** The help text: every command of the table with its usage and description. */
export function usageText(): string {
  return [
    `Usage: ${PROGRAM} <command> [options]`,
    '',
    ...COMMANDS.map(describe),
    '',
    'Results go to stdout, logs to stderr. The data directory and stores come from the same',
    'environment variables as the server (WARDEN_DATA_DIR, WARDEN_EVENTSTORE_URL, WARDEN_MONGO_URL).',
  ].join('\n');
}

function describe(command: CliCommand): string {
  return `  ${synopsis(command)}\n      ${command.description}`;
}
