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

/** Whether `words` begin with `prefix` (a command's name, split into its words). */
export function startsWith(words: readonly string[], prefix: readonly string[]): boolean {
  return prefix.length <= words.length && prefix.every((word, i) => words[i] === word);
}
