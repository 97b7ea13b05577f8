import { describe, expect, it } from 'vitest';
import { type BatchReport, parseBatch, runBatch } from './batch-command.js';
import { UsageError } from './cli-command.js';
import { findCommand, unknownCommandMessage } from './command-table.js';

const lines = (...values: unknown[]) => values.map((v) => (typeof v === 'string' ? v : JSON.stringify(v))).join('\n');

/** `warden batch` without the stores: the script's checks, and a run of commands that need none (docs/cli.md, "Batches"). */
describe('warden batch', () => {
  it('reads one command a line, an array of arguments or {args, input}, skipping blank lines', () => {
    const script = lines(
      ['help', 'api-key'],
      '',
      '   ',
      { args: ['user', 'set-password', '--org', 'a', '--email', 'e@a.example'], input: 'pw' },
      { args: ['help'] },
    );
    expect(parseBatch(script, findCommand, unknownCommandMessage)).toEqual([
      { line: 1, args: ['help', 'api-key'], input: undefined },
      { line: 4, args: ['user', 'set-password', '--org', 'a', '--email', 'e@a.example'], input: 'pw' },
      { line: 5, args: ['help'], input: undefined },
    ]);
  });

  it.each([
    ['help --org x', /^Line 1 is not JSON/],
    [lines([]), /^Line 1: the arguments must be a non-empty array of strings/],
    [lines(['help', 3]), /^Line 1: the arguments must be a non-empty array of strings/],
    [lines('"help"'), /^Line 1: a command is a JSON array or an object with "args"/],
    [lines({ args: 'help' }), /^Line 1: "args" must be an array of strings/],
    [lines({ args: ['help'], input: ['pw'] }), /^Line 1: "input" must be a string/],
    [lines({ args: ['help'], stdin: 'pw' }), /^Line 1: unknown field "stdin"/],
    [lines(['help'], ['frobnicate', 'now']), /^Line 2: Unknown command: frobnicate$/],
    [lines(['api-key', 'frob']), /^Line 1: Unknown command: api-key frob \(api-key takes create, list, rotate or revoke\)/],
    [lines(['help'], ['batch']), /^Line 2: a batch cannot run another batch/],
    [lines({ args: ['help'], input: 'x' }), /^Line 1: help reads no input/],
    [
      lines({ args: ['user', 'create', '--org', 'a', '--email', 'e@a.example', '--role', 'ADMIN'], input: 'pw' }),
      /^Line 1: user create reads no input \(without --with-password\)/,
    ],
    [lines(['user', 'set-password', '--org', 'a', '--email', 'e@a.example']), /^Line 1: user set-password reads a password: give it as the entry's "input"/],
    [lines(['user', 'create', '--org', 'a', '--email', 'e@a.example', '--role', 'ADMIN', '--with-password']), /^Line 1: user create reads a password/],
  ])('refuses %j as a usage error naming the line', (script, message) => {
    const parse = () => parseBatch(script, findCommand, unknownCommandMessage);
    expect(parse).toThrow(UsageError);
    expect(parse).toThrow(message);
  });

  it('takes a script saved with a byte-order mark and Windows line ends, its last line without one', () => {
    const script = `\uFEFF${JSON.stringify(['help'])}\r\n${JSON.stringify({ args: ['user', 'set-password', '--org', 'a', '--email', 'e@a.example'], input: 'pw' })}`;
    expect(parseBatch(script, findCommand, unknownCommandMessage)).toEqual([
      { line: 1, args: ['help'], input: undefined },
      { line: 2, args: ['user', 'set-password', '--org', 'a', '--email', 'e@a.example'], input: 'pw' },
    ]);
  });

  it('runs commands that need no stores without opening them, reporting each; the first failure ends it with its code', async () => {
    const reports: BatchReport[] = [];
    const entries = parseBatch(lines(['help', 'org'], ['hash'], ['help']), findCommand, unknownCommandMessage);
    expect(await runBatch(entries, findCommand, (r) => reports.push(r))).toBe(2);
    expect(reports).toEqual([
      { line: 1, exit: 0, out: [expect.stringContaining('org create --id <orgId> --name <name>')], error: null },
      { line: 2, exit: 2, out: [], error: expect.stringMatching(/^hash takes one or more files or URLs\n\nUsage: /) },
    ]);
  });

  it("puts what a command writes to standard error in its own report, not the batch's standard error", async () => {
    const reports: BatchReport[] = [];
    const written: string[] = [];
    const write = process.stderr.write.bind(process.stderr);
    process.stderr.write = ((chunk: string | Uint8Array) => written.push(String(chunk)) > 0) as typeof process.stderr.write;
    try {
      const entries = parseBatch(lines(['hash', '/nonexistent/warden-batch.png']), findCommand, unknownCommandMessage);
      expect(await runBatch(entries, findCommand, (r) => reports.push(r))).toBe(1);
    } finally {
      process.stderr.write = write;
    }
    expect(reports).toEqual([{ line: 1, exit: 1, out: [], error: expect.stringMatching(/^\/nonexistent\/warden-batch\.png: ENOENT/) }]);
    expect(written).toEqual([]);
  });
});
