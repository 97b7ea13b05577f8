import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { COMMANDS, findCommand } from './command-table.js';
import { runCli } from './run-cli.js';

const DOCS = readFileSync(new URL('../../../../docs/cli.md', import.meta.url), 'utf8');

/** Runs the CLI in process with its output collected; only commands that need no store. */
async function cli(...argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const stdout: string[] = [];
  const stderr: string[] = [];
  const code = await runCli(
    argv,
    (line) => stdout.push(line),
    (line) => stderr.push(line),
  );
  return { code, stdout: stdout.join('\n'), stderr: stderr.join('\n') };
}

describe('the CLI command table', () => {
  it('has one entry per name, none hiding another, each with a one-line description', () => {
    const names = COMMANDS.map((command) => command.name);
    expect(new Set(names).size).toBe(names.length);
    for (const command of COMMANDS) {
      expect(command.name).toMatch(/^[a-z][a-z-]*( [a-z][a-z-]*)?$/);
      expect(command.description).toMatch(/^[^\n]+$/);
      expect(command.usage).not.toContain('\n');
      expect(findCommand([...command.name.split(' '), '--org', 'acme'])).toEqual({ command, args: ['--org', 'acme'] });
    }
  });

  it('help lists every command with its usage and description', async () => {
    const help = await cli('help');
    expect(help.code).toBe(0);
    expect(help.stderr).toBe('');
    for (const command of COMMANDS) {
      expect(help.stdout).toContain(`\n  ${`${command.name} ${command.usage}`.trim()}\n      ${command.description}\n`);
    }
    expect((await cli('--help')).stdout).toBe(help.stdout);
    expect(await cli()).toEqual({ code: 2, stdout: help.stdout, stderr: '' });
  });

  it('help with words lists only the commands they name', async () => {
    const help = await cli('help', 'api-key');
    expect(help.code).toBe(0);
    expect(help.stdout.match(/^ {2}\S.*$/gm)).toEqual([
      '  api-key create --org <orgId> [--name <name>] [--team <team>]',
      '  api-key list --org <orgId>',
      '  api-key rotate --org <orgId> --key <keyId>',
      '  api-key revoke --org <orgId> --key <keyId>',
    ]);
  });

  it('answers an unknown command with exit code 2, the message and the list of commands', async () => {
    const unknown = await cli('frobnicate', '--org', 'acme');
    expect(unknown.code).toBe(2);
    expect(unknown.stdout).toBe('');
    expect(unknown.stderr.split('\n')[0]).toBe('Unknown command: frobnicate');
    for (const command of COMMANDS) expect(unknown.stderr).toContain(`\n  ${command.name}`);

    const subcommand = await cli('api-key', 'frobnicate');
    expect(subcommand.code).toBe(2);
    expect(subcommand.stderr.split('\n')[0]).toBe('Unknown command: api-key frobnicate (api-key takes create, list, rotate or revoke)');
    expect((await cli('org')).stderr.split('\n')[0]).toBe('Unknown command: org (org takes create)');
    expect((await cli('help', 'frobnicate')).code).toBe(2);
  });

  it("answers a usage error with exit code 2, the message and the command's usage", async () => {
    const result = await cli('hash');
    expect(result).toEqual({
      code: 2,
      stdout: '',
      stderr: expect.stringMatching(/^hash takes one or more files or URLs\n\nUsage: npm run warden -- hash <file-or-url>\.\.\.\n/),
    });
  });

  it('is what docs/cli.md documents', () => {
    const documented = [...DOCS.matchAll(/^\| `([a-z][a-z-]*(?: [a-z][a-z-]*)?)\b/gm)].map((match) => match[1]);
    expect(new Set(documented)).toEqual(new Set(COMMANDS.map((command) => command.name)));
  });
});
