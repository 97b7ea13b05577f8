import 'reflect-metadata';
import type { INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { createRootLogger, loadConfig, PinoNestLogger } from '#warden/platform';
import { openStorage } from '#warden/storage';
import { AppModule } from '../app.module.js';
import { type Out, UsageError } from './cli-command.js';
import { commandUsage, findCommand, unknownCommandMessage, usageText } from './command-table.js';

const stdout: Out = (line) => process.stdout.write(line + '\n');
const stderr: Out = (line) => process.stderr.write(line + '\n');

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
  try {
    if (found === undefined) throw new UsageError(unknownCommandMessage(argv));
    const { command, args } = found;
    if ('run' in command) return await command.run(args, out);
    return await withApp((app) => command.runInApp(args, app, out));
  } catch (error) {
    if (error instanceof UsageError) {
      err(`${error.message}\n\n${found === undefined ? usageText() : commandUsage(found.command)}`);
      return 2;
    }
    err(`Error: ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  }
}

async function withApp(run: (app: INestApplicationContext) => Promise<number>): Promise<number> {
  const config = loadConfig();
  const logger = createRootLogger(config.logLevel === 'info' ? 'warn' : config.logLevel);
  const storage = await openStorage(config);
  const app = await NestFactory.createApplicationContext(
    AppModule.forRoot(config, storage, { background: false }),
    { logger: new PinoNestLogger(logger), abortOnError: false },
  );
  try {
    return await run(app);
  } finally {
    await app.close();
    await storage.close();
  }
}
