import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import type { EventStore } from '#warden/eventstore';
import { KEYRING, type Keyring } from '#warden/platform';
import { AggregateStore, EVENT_STORE, ProjectionHost } from '#warden/storage';
import { orgConfigDecider, ssoSettingsOf } from '../../domain/org-config.decider.js';
import { readOrgConfig, recordOrgConfigChange } from '../org-config-state.js';
import { ChangeSsoSettingsCommand, type ChangeSsoSettingsResult } from './change-sso-settings.command.js';

/**
 * Decided on the organization's configuration stream, like an apply: the same expected revision
 * serializes a console change with a concurrent apply, and the certificate is compared in
 * plaintext (each sealing uses a fresh IV) and sealed again before it is appended.
 */
@CommandHandler(ChangeSsoSettingsCommand)
export class ChangeSsoSettingsHandler implements ICommandHandler<ChangeSsoSettingsCommand> {
  constructor(
    @Inject(EVENT_STORE) readonly events: EventStore,
    @Inject(KEYRING) readonly keyring: Keyring,
    readonly aggregates: AggregateStore,
    @Inject(ProjectionHost) readonly projections: ProjectionHost,
  ) {}

  async execute(command: ChangeSsoSettingsCommand): Promise<ChangeSsoSettingsResult> {
    const read = await readOrgConfig(this.events, this.keyring, command.orgId);
    const decided = orgConfigDecider.decide({ type: 'ChangeSsoSettings', settings: command.settings }, read.state);
    const after = ssoSettingsOf(decided.reduce(orgConfigDecider.evolve, read.state));
    if (decided.length === 0) return { sso: after, changed: false };
    // Read your writes: this process's sign-ins and reads see the change at once (others on their next poll).
    await recordOrgConfigChange(this, read, decided, command.orgId, command.context);
    return { sso: after, changed: true };
  }
}
