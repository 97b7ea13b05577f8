import { randomUUID } from 'node:crypto';
import type { INestApplicationContext } from '@nestjs/common';
import type { CommandContext } from '#warden/kernel';

/** Writes one line of a command's result. */
export type Out = (line: string) => void;

interface CommandInfo {
  /** The words that select the command, e.g. `api-key create`. */
  readonly name: string;
  /** What follows the name: options and arguments, '' when there are none. */
  readonly usage: string;
  /** One line for the help text. */
  readonly description: string;
}

/** A command that needs no store, so it runs without starting the application. */
export interface StandaloneCommand extends CommandInfo {
  /** `err`: as CommandIo's. */
  readonly run: (args: string[], out: Out, err: Out) => Promise<number>;
}

/**
 * What a command reads as its standard input, whole (a password): given by `batch`, which holds
 * the process's own standard input; read from the process otherwise.
 */
export type Input = () => Promise<string>;

/**
 * A command's other streams: `err` for its problems and warnings (standard error; in a batch, its
 * report's `error`), `input` when a batch gives it one (else the command reads the process's).
 */
export interface CommandIo {
  readonly err: Out;
  readonly input?: Input;
}

/** A command that runs against the stores, inside an application context opened for it. */
export interface AppCommand extends CommandInfo {
  readonly runInApp: (args: string[], app: INestApplicationContext, out: Out, io: CommandIo) => Promise<number>;
  /** Whether the command, given `args`, reads its standard input (a batch entry's `input` must then be given, and only then). */
  readonly readsInput?: (args: readonly string[]) => boolean;
}

/** One entry of the command table; a handler returns the process exit code. */
export type CliCommand = StandaloneCommand | AppCommand;

/** The arguments do not fit the command: exit code 2, with the command's usage. */
export class UsageError extends Error {}

export function cliContext(orgId: string): CommandContext {
  return { orgId, correlationId: randomUUID(), actor: 'cli' };
}
