import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { CreateApiKeyCommand, CreateOrganizationCommand, ListApiKeysQuery, RevokeApiKeyCommand, RotateApiKeyCommand } from '#warden/identity';
import { type AppCommand, cliContext, type Out } from './cli-command.js';
import { parseCommandArgs, parseSharedOptions, required, SHARED_OPTIONS } from './command-options.js';
import { formatTable } from './format-table.js';

export const orgCreateCommand: AppCommand = {
  name: 'org create',
  usage: '--id <orgId> --name <name> [--with-key]',
  description:
    'creates an organization (ids: lower-case letters, digits, - and _); --with-key also creates its first API key, printed once, alone on the last line',
  async runInApp(args, app, out) {
    const { 'with-key': withKey, ...options } = parseCommandArgs(args, { ...SHARED_OPTIONS, 'with-key': { type: 'boolean' } }).values;
    const id = required(options, 'id');
    const name = required(options, 'name');
    const commands = app.get(CommandBus);
    const org = await commands.execute(new CreateOrganizationCommand(id, name, cliContext(id)));
    out(`Created organization ${org.orgId} (${org.name})`);
    // The first key in the same process: one start-up instead of two for the usual first steps
    // (docs/cli.md). Two commands, not one: should the key fail, the organization stands and
    // `api-key create` makes its key.
    if (withKey === true) printNewKey(out, id, await commands.execute(new CreateApiKeyCommand(id, null, null, cliContext(id))));
    return 0;
  },
};

/** A new key's two lines: what it is, then the key alone on the last line (what scripts capture). */
function printNewKey(out: Out, org: string, created: { keyId: string; key: string }): void {
  out(`Created API key ${created.keyId} for organization ${org}. Store it now; it is not shown again:`);
  out(created.key);
}

export const apiKeyCreateCommand: AppCommand = {
  name: 'api-key create',
  usage: '--org <orgId> [--name <name>] [--team <team>]',
  description: 'creates a key for the organization (and team); prints it once, alone on the last line',
  async runInApp(args, app, out) {
    const options = parseSharedOptions(args);
    const org = required(options, 'org');
    printNewKey(out, org, await app.get(CommandBus).execute(new CreateApiKeyCommand(org, options.name ?? null, options.team ?? null, cliContext(org))));
    return 0;
  },
};

export const apiKeyListCommand: AppCommand = {
  name: 'api-key list',
  usage: '--org <orgId>',
  description: "the organization's keys: id, name, team, prefix, status, created and last-used times",
  async runInApp(args, app, out) {
    const options = parseSharedOptions(args);
    const keys = await app.get(QueryBus).execute(new ListApiKeysQuery(required(options, 'org')));
    out(
      formatTable(
        ['id', 'name', 'team', 'prefix', 'status', 'created', 'last used'],
        keys.map((k) => [k.id, k.name ?? '', k.team ?? '', k.prefix, k.status, k.createdAt, k.lastUsedAt ?? 'never']),
      ),
    );
    return 0;
  },
};

export const apiKeyRotateCommand: AppCommand = {
  name: 'api-key rotate',
  usage: '--org <orgId> --key <keyId>',
  description: 'creates a replacement key (printed on the last line) and deactivates the old one',
  async runInApp(args, app, out) {
    const options = parseSharedOptions(args);
    const org = required(options, 'org');
    const key = required(options, 'key');
    const created = await app.get(CommandBus).execute(new RotateApiKeyCommand(org, key, cliContext(org)));
    out(`Rotated API key ${key}: it no longer works. New key ${created.keyId}; store it now, it is not shown again:`);
    out(created.key);
    return 0;
  },
};

export const apiKeyRevokeCommand: AppCommand = {
  name: 'api-key revoke',
  usage: '--org <orgId> --key <keyId>',
  description: 'deactivates a key',
  async runInApp(args, app, out) {
    const options = parseSharedOptions(args);
    const org = required(options, 'org');
    const key = required(options, 'key');
    await app.get(CommandBus).execute(new RevokeApiKeyCommand(org, key, cliContext(org)));
    out(`Revoked API key ${key}`);
    return 0;
  },
};
