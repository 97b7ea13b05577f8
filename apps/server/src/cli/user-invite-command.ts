import { CommandBus } from '@nestjs/cqrs';
import { invitationLink, InviteUserCommand } from '#warden/identity';
import { WARDEN_CONFIG, type WardenConfig } from '#warden/platform';
import { type AppCommand, cliContext } from './cli-command.js';
import { parseCommandArgs, required } from './command-options.js';

export const userInviteCommand: AppCommand = {
  name: 'user invite',
  usage: '--org <orgId> --email <email> [--role <ROLE>...]',
  description: 'invites a person, or renews the link of a user not yet accepted (e.g. one apply created); prints the one-time link (72 h) on the last line',
  async runInApp(args, app, out) {
    const { role, ...options } = parseCommandArgs(args, { org: { type: 'string' }, email: { type: 'string' }, role: { type: 'string', multiple: true } }).values;
    const org = required(options, 'org');
    const invitation = await app.get(CommandBus).execute(new InviteUserCommand(org, required(options, 'email'), role ?? [], cliContext(org)));
    out(`Invited ${options.email} to ${org} (user ${invitation.userId}); the link works once, until ${invitation.expiresAt}:`);
    out(invitationLink(app.get<WardenConfig>(WARDEN_CONFIG).publicUrl, invitation.token));
    return 0;
  },
};
