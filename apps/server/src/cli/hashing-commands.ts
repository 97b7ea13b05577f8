import type { INestApplicationContext } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { hashImage, ImportBankHashesCommand, type ImportReport, RemoveBankHashesCommand, type RemoveReport } from '#warden/hashing';
import { DomainError, redactUrl } from '#warden/kernel';
import { GuardedHttpClient, loadConfig, type WardenConfig } from '#warden/platform';
import { ProjectionHost } from '#warden/storage';
import { type AppCommand, cliContext, type Out, type StandaloneCommand, UsageError } from './cli-command.js';
import { parseSharedOptionsAndFiles, required } from './command-options.js';
import { readRegularFile, readRegularFileBytes } from './regular-file.js';

export const hashCommand: StandaloneCommand = {
  name: 'hash',
  usage: '<file-or-url>...',
  description: 'prints <pdq>,<quality>,<md5>,<sha256>,<input> per image',
  async run(args, out, err) {
    if (args.length === 0) throw new UsageError('hash takes one or more files or URLs');
    return runHashCommand(args, loadConfig(), out, err);
  },
};

/** `bank import` and `bank remove`: the same options and file, one verb apart. */
function bankCommand(verb: 'import' | 'remove', description: string): AppCommand {
  return {
    name: `bank ${verb}`,
    usage: '--org <orgId> --bank <bankId> <file>',
    description,
    async runInApp(args, app, out, { err }) {
      const { options, files } = parseSharedOptionsAndFiles(args);
      const org = required(options, 'org');
      const [file] = files;
      if (!file) throw new UsageError(`bank ${verb} takes a file of hashes`);
      return runBankCommand(verb, { org, bank: required(options, 'bank'), file }, app, out, err, cliContext(org));
    },
  };
}

export const bankImportCommand = bankCommand('import', 'adds hashes (one hex hash per line) to a configured bank');
export const bankRemoveCommand = bankCommand('remove', "removes hashes an import put in a bank (one hex hash per line); the configuration's stay the file's");

/**
 * `hash <file-or-url>...`: one CSV line per input, `<pdq>,<quality>,<md5>,<sha256>,<input>`.
 * Local files need no server; URLs go through the guarded client like the worker's fetches. A URL
 * is printed without its query string and user info (redactUrl): a pre-signed media URL's
 * signature must not land in a terminal's scrollback or a CI log (docs/hashing.md).
 */
async function runHashCommand(inputs: string[], config: WardenConfig, out: Out, err: Out): Promise<number> {
  const http = new GuardedHttpClient({ allowlist: config.outboundAllowlist });
  let failed = 0;
  try {
    for (const input of inputs) {
      const isUrl = /^https?:\/\//i.test(input);
      const shown = isUrl ? redactUrl(input) : input;
      try {
        const bytes = isUrl ? await download(http, input) : readRegularFileBytes(input);
        const h = await hashImage(bytes);
        out(`${h.pdq},${h.quality},${h.md5},${h.sha256},${shown}`);
      } catch (error) {
        failed++;
        err(`${shown}: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
  } finally {
    await http.close();
  }
  return failed === 0 ? 0 : 1;
}

async function download(http: GuardedHttpClient, url: string): Promise<Buffer> {
  const res = await http.request({ method: 'GET', url, maxBytes: 20 * 1024 * 1024 });
  if (res.status < 200 || res.status >= 300) throw new Error(`HTTP ${res.status}`);
  return res.body;
}

/** `bank import|remove --org O --bank B <file>`: adds hashes to a configured bank, or removes imported ones. */
async function runBankCommand(
  verb: 'import' | 'remove',
  options: { org: string; bank: string; file: string },
  app: INestApplicationContext,
  out: Out,
  err: Out,
  context: { orgId: string; correlationId: string; actor: string },
): Promise<number> {
  await app.get(ProjectionHost).catchUp('catalog');
  let text: string;
  try {
    text = readRegularFile(options.file);
  } catch (error) {
    throw new Error(`cannot read hashes file "${options.file}": ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
  const commands = app.get(CommandBus);
  try {
    if (verb === 'import') {
      const report: ImportReport = await commands.execute(new ImportBankHashesCommand(options.bank, text, context));
      out(`Imported ${report.added} hash(es) into bank ${report.bankId} (${report.alreadyPresent} already present) as ${report.events} event(s)`);
    } else {
      const report: RemoveReport = await commands.execute(new RemoveBankHashesCommand(options.bank, text, context));
      out(
        `Removed ${report.removed} hash(es) from bank ${report.bankId} (${report.notImported} not imported there: not in the bank, or only the configuration's, which the file drops) as ${report.events} event(s)`,
      );
    }
  } catch (error) {
    if (!(error instanceof DomainError) || error.kind !== 'invalid-user-input') throw error;
    // One line each, as apply prints its problems: twenty on one line could not be read.
    err([`${options.file}: nothing was ${verb === 'import' ? 'imported' : 'removed'}:`, ...error.details.map((d) => `  ${d.detail ?? d.title}`)].join('\n'));
    return 1;
  }
  return 0;
}
