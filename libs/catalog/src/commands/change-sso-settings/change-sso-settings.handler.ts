import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { AggregateStore, ProjectionHost, KEYRING, type Keyring } from '#warden/storage';
import { ssoSettingsOf } from '../../domain/org-config.decider.js';
import { changeOrgConfig } from '../org-config-state.js';
import { ChangeSsoSettingsCommand, type ChangeSsoSettingsResult } from './change-sso-settings.command.js';

/**
 * Decided on the organization's configuration stream, like an apply: the same expected revision
 * serializes a console change with a concurrent apply, and the certificate is compared in
 * plaintext (each sealing uses a fresh IV) and sealed again before it is appended.
 */
@CommandHandler(ChangeSsoSettingsCommand)
export class ChangeSsoSettingsHandler implements ICommandHandler<ChangeSsoSettingsCommand> {
  constructor(
    @Inject(KEYRING) readonly keyring: Keyring,
    readonly aggregates: AggregateStore,
    @Inject(ProjectionHost) readonly projections: ProjectionHost,
  ) {}

  async execute(command: ChangeSsoSettingsCommand): Promise<ChangeSsoSettingsResult> {
    // Read your writes: this process's sign-ins and reads see the change at once (others on their next poll).
    const { events, state } = await changeOrgConfig(this, command.orgId, { type: 'ChangeSsoSettings', settings: command.settings }, command.context);
    return { sso: ssoSettingsOf(state), changed: events.length > 0 };
  }
}
