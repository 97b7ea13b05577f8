import type { CliCommand } from './cli-command.js';

/** How the docs run the CLI (docs/cli.md). */
export const PROGRAM = 'npm run warden --';

/** What follows a usage error of one command. */
export function commandUsage(command: CliCommand): string {
  return [`Usage: ${PROGRAM} ${synopsis(command)}`, `  ${command.description}`, '', `\`${PROGRAM} help\` lists every command.`].join('\n');
}

export function synopsis(command: CliCommand): string {
  return command.usage === '' ? command.name : `${command.name} ${command.usage}`;
}
