import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { FindUserByEmailQuery, invitationLink, InviteUserCommand } from '#warden/identity';
import { WARDEN_CONFIG, type WardenConfig } from '#warden/platform';
import { type AppCommand, cliContext, UsageError } from './cli-command.js';
import { parseCommandArgs, required } from './command-options.js';

export const userInviteCommand: AppCommand = {
  name: 'user invite',
  usage: '--org <orgId> --email <email> [--role <ROLE>...]',
  description: 'invites a person, or renews the link of a user not yet accepted (e.g. one apply created); prints the one-time link (72 h) on the last line',
  async runInApp(args, app, out) {
    const { role, ...options } = parseCommandArgs(args, { org: { type: 'string' }, email: { type: 'string' }, role: { type: 'string', multiple: true } }).values;
    const org = required(options, 'org');
    const email = required(options, 'email');
    // Roles may be left out only to renew the link of a user that exists (e.g. one apply created).
    if ((role ?? []).length === 0 && (await app.get(QueryBus).execute(new FindUserByEmailQuery(email))) === null) {
      throw new UsageError('Missing --role: a new user needs at least one');
    }
    const invitation = await app.get(CommandBus).execute(new InviteUserCommand(org, email, role ?? [], cliContext(org)));
    out(`Invited ${options.email} to ${org} (user ${invitation.userId}); the link works once, until ${invitation.expiresAt}:`);
    out(invitationLink(app.get<WardenConfig>(WARDEN_CONFIG).publicUrl, invitation.token));
    return 0;
  },
};
