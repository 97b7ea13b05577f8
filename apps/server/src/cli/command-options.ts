import { parseArgs, type ParseArgsOptionsConfig } from 'node:util';
import { UsageError } from './cli-command.js';

/** `parseArgs`, strict, its complaints turned into usage errors. */
export function parseCommandArgs<T extends ParseArgsOptionsConfig>(args: string[], options: T, allowPositionals = false) {
  try {
    return parseArgs({ args, options, allowPositionals, strict: true });
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
}

/** The options the organization, API key, bank and rule commands share (each reads its own). */
export const SHARED_OPTIONS = {
  id: { type: 'string' },
  name: { type: 'string' },
  org: { type: 'string' },
  team: { type: 'string' },
  key: { type: 'string' },
  rule: { type: 'string' },
  'rule-file': { type: 'string' },
  since: { type: 'string' },
  bank: { type: 'string' },
} as const satisfies ParseArgsOptionsConfig;

export type SharedOptions = Record<string, string | undefined>;

export function parseSharedOptions(args: string[], allowPositionals = false): SharedOptions {
  return parseCommandArgs(args, SHARED_OPTIONS, allowPositionals).values;
}

/** The shared options and the non-option arguments (files), as `parseArgs` tells them apart (`--bank=x` and `--bank x` alike). */
export function parseSharedOptionsAndFiles(args: string[]): { options: SharedOptions; files: string[] } {
  const parsed = parseCommandArgs(args, SHARED_OPTIONS, true);
  return { options: parsed.values, files: parsed.positionals };
}

/** A string option that must be given (flags, boolean, do not count). */
export function required(options: Readonly<Record<string, string | boolean | undefined>>, name: string): string {
  const v = options[name];
  if (typeof v !== 'string' || v.trim() === '') throw new UsageError(`Missing --${name}`);
  return v;
}
