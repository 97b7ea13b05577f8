import { CommandBus, QueryBus } from '@nestjs/cqrs';
import type { INestApplicationContext } from '@nestjs/common';
import {
  CreateUserCommand,
  DisableUserCommand,
  FindUserByEmailQuery,
  invitationLink,
  InviteUserCommand,
  ListUsersQuery,
  SetUserPasswordCommand,
  type UserView,
} from '#warden/identity';
import { DomainError } from '#warden/kernel';
import { WARDEN_CONFIG, type WardenConfig } from '#warden/platform';
import { type AppCommand, cliContext, type Input, UsageError } from './cli-command.js';
import { parseCommandArgs, required } from './command-options.js';
import { formatTable } from './format-table.js';
import { readStdin } from './run-command.js';

const USER_OPTIONS = { org: { type: 'string' }, email: { type: 'string' }, role: { type: 'string', multiple: true } } as const;

function parseUserOptions(args: string[]): { options: { org?: string; email?: string }; roles: string[] } {
  const { role, ...options } = parseCommandArgs(args, USER_OPTIONS).values;
  return { options, roles: role ?? [] };
}

/**
 * The user a command's `--org` and `--email` name; a user of another organization is not found
 * either.
 */
async function namedUser(args: string[], app: INestApplicationContext): Promise<{ org: string; user: UserView }> {
  const { options } = parseUserOptions(args);
  const org = required(options, 'org');
  const email = required(options, 'email');
  const user = await app.get(QueryBus).execute(new FindUserByEmailQuery(email, org));
  if (!user) throw new Error(`No user ${email} in organization ${org}`);
  return { org, user };
}

/**
 * The new password. From a terminal: a prompt on standard error, the typing not echoed, ended by
 * Enter. From a pipe or a file: standard input to its end, less one trailing newline (what `echo`
 * or a here-string adds); in a batch, the command's `input`. Never an argument: arguments are
 * visible to other users of the host.
 */
async function readPassword(input?: Input): Promise<string> {
  if (input) return (await input()).replace(/\r?\n$/, '');
  if (process.stdin.isTTY) return promptHidden('New password (not shown; Enter to finish): ');
  return (await readStdin()).replace(/\r?\n$/, '');
}

/** Reads one line from the terminal in raw mode, so nothing typed is shown. */
function promptHidden(prompt: string): Promise<string> {
  const stdin = process.stdin;
  // Echo off before the prompt shows: what is typed the moment it appears must not be echoed.
  stdin.setRawMode(true);
  stdin.resume();
  process.stderr.write(prompt);
  let typed = '';
  return new Promise((resolve, reject) => {
    const done = (finish: () => void) => {
      stdin.off('data', onData);
      stdin.setRawMode(false);
      stdin.pause();
      process.stderr.write('\n');
      finish();
    };
    const onData = (chunk: Buffer) => {
      for (const char of chunk.toString('utf8')) {
        if (char === '\r' || char === '\n' || char === '\u0004') return done(() => resolve(typed));
        if (char === '\u0003') return done(() => reject(new Error('Cancelled')));
        if (char === '\u007f' || char === '\b') typed = [...typed].slice(0, -1).join('');
        else typed += char;
      }
    };
    stdin.on('data', onData);
  });
}

export const userCreateCommand: AppCommand = {
  name: 'user create',
  usage: '--org <orgId> --email <email> --role <ROLE> [--role <ROLE>...] [--with-password]',
  description:
    'creates a dashboard user; prints its id. Without a password it is listed `active (no password)` until user set-password; ' +
    '--with-password asks for one as user set-password does (or reads it from standard input) and creates the user only if the password is accepted',
  readsInput: (args) => args.includes('--with-password'),
  async runInApp(args, app, out, { input }) {
    const { 'with-password': withPassword, ...rest } = parseCommandArgs(args, { ...USER_OPTIONS, 'with-password': { type: 'boolean' } }).values;
    const { role, ...options } = rest;
    const org = required(options, 'org');
    const email = required(options, 'email');
    if ((role ?? []).length === 0) throw new UsageError('Missing --role');
    // Read before anything is written: one command, so a refused password leaves no user behind.
    const password = withPassword === true ? await readPassword(input) : undefined;
    if (password === '') throw new UsageError('No password given: type it at the prompt, or pipe it on standard input');
    const create = new CreateUserCommand(org, email, role ?? [], cliContext(org), password === undefined ? {} : { password });
    const { userId } = await refusingPassword(() => app.get(CommandBus).execute(create));
    out(userId);
    return 0;
  },
};

/** Runs `write`; a refusal of the password is said as such rather than as a request's field. */
async function refusingPassword<T>(write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    const refusal = error instanceof DomainError && error.kind === 'invalid-user-input' ? error.details.find((d) => d.pointer === '/password') : undefined;
    if (refusal) throw new Error(`The password was refused: ${refusal.detail ?? refusal.title}`, { cause: error });
    throw error;
  }
}

export const userSetPasswordCommand: AppCommand = {
  name: 'user set-password',
  usage: '--org <orgId> --email <email>   (asks for the password; or pipe it on standard input)',
  description: "sets a user's password, read from standard input (never an argument: arguments are visible to other users of the host)",
  readsInput: () => true,
  async runInApp(args, app, out, { input }) {
    const { org, user } = await namedUser(args, app);
    const password = await readPassword(input);
    if (password === '') throw new UsageError('No password given: type it at the prompt, or pipe it on standard input');
    await refusingPassword(() => app.get(CommandBus).execute(new SetUserPasswordCommand(org, user.id, password, cliContext(org))));
    out(`Set the password of user ${user.id}`);
    return 0;
  },
};

export const userDisableCommand: AppCommand = {
  name: 'user disable',
  usage: '--org <orgId> --email <email>',
  description: 'disables a user; its sessions stop working on their next request',
  async runInApp(args, app, out) {
    const { org, user } = await namedUser(args, app);
    await app.get(CommandBus).execute(new DisableUserCommand(org, user.id, cliContext(org)));
    out(`Disabled user ${user.id}`);
    return 0;
  },
};

/**
 * `active (no password)` for an active user who cannot sign in with a password (made by `user
 * create` and never given one): listed as plain `active`, it looked like one who can.
 */
export function shownState(user: Pick<UserView, 'state' | 'hasPassword'>): string {
  return user.state === 'active' && !user.hasPassword ? 'active (no password)' : user.state;
}

export const userListCommand: AppCommand = {
  name: 'user list',
  usage: '--org <orgId>',
  description: "the organization's dashboard users: id, email, roles, state (`active (no password)`: cannot sign in with a password yet)",
  async runInApp(args, app, out) {
    const { options } = parseUserOptions(args);
    const users = await app.get(QueryBus).execute(new ListUsersQuery(required(options, 'org')));
    out(
      formatTable(
        ['id', 'email', 'roles', 'state'],
        users.map((u) => [u.id, u.email ?? '(erased)', u.roles.join(','), shownState(u)]),
      ),
    );
    return 0;
  },
};

export const userInviteCommand: AppCommand = {
  name: 'user invite',
  usage: '--org <orgId> --email <email> [--role <ROLE>...]',
  description: 'invites a person, or renews the link of a user not yet accepted (e.g. one apply created); prints the one-time link (72 h) on the last line',
  async runInApp(args, app, out) {
    const { options, roles } = parseUserOptions(args);
    const org = required(options, 'org');
    const email = required(options, 'email');
    // Roles may be left out only to renew the link of a user that exists (e.g. one apply created).
    if (roles.length === 0 && (await app.get(QueryBus).execute(new FindUserByEmailQuery(email, org))) === null) {
      throw new UsageError('Missing --role: a new user needs at least one');
    }
    const invitation = await app.get(CommandBus).execute(new InviteUserCommand(org, email, roles, cliContext(org)));
    out(`Invited ${email} to ${org} (user ${invitation.userId}); the link works once, until ${invitation.expiresAt}:`);
    out(invitationLink(app.get<WardenConfig>(WARDEN_CONFIG).publicUrl, invitation.token));
    return 0;
  },
};
