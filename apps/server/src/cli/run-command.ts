import { type Out, UsageError } from './cli-command.js';

export const stdout: Out = (line) => process.stdout.write(line + '\n');

/** The process's standard input to its end, as UTF-8 (a piped password, a batch's script). */
export async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
export const stderr: Out = (line) => process.stderr.write(line + '\n');

/**
 * Runs a command and turns what it threw into the process exit code (docs/cli.md): 0 done, 1 an
 * error (one line on stderr), 2 a usage error (the message, then `usage()`).
 */
export async function runReporting(run: () => Promise<number>, usage: () => string, err: Out): Promise<number> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof UsageError) {
      err(`${error.message}\n\n${usage()}`);
      return 2;
    }
    err(`Error: ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  }
}
