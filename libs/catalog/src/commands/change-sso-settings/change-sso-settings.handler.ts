import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { type EventStore, WrongExpectedRevisionError } from '#warden/eventstore';
import { concurrentUpdateConflict } from '#warden/kernel';
import { KEYRING, type Keyring } from '#warden/platform';
import { AggregateStore, EVENT_STORE, ProjectionHost } from '#warden/storage';
import { orgConfigDecider, ssoSettingsOf } from '../../domain/org-config.decider.js';
import { CATALOG_PROJECTION } from '../../projections/catalog.projection.js';
import { sealSecrets } from '../../secrets/catalog-secrets.js';
import { readOrgConfig } from '../org-config-state.js';
import { ChangeSsoSettingsCommand, type ChangeSsoSettingsResult } from './change-sso-settings.command.js';

/**
 * Decided on the organization's configuration stream, like an apply: the same expected revision
 * serializes a console change with a concurrent apply, and the certificate is compared in
 * plaintext (each sealing uses a fresh IV) and sealed again before it is appended.
 */
@CommandHandler(ChangeSsoSettingsCommand)
export class ChangeSsoSettingsHandler implements ICommandHandler<ChangeSsoSettingsCommand> {
  constructor(
    @Inject(EVENT_STORE) private readonly events: EventStore,
    @Inject(KEYRING) private readonly keyring: Keyring,
    private readonly aggregates: AggregateStore,
    @Inject(ProjectionHost) private readonly projections: ProjectionHost,
  ) {}

  async execute(command: ChangeSsoSettingsCommand): Promise<ChangeSsoSettingsResult> {
    const { stream, state, expected } = await readOrgConfig(this.events, this.keyring, command.orgId);
    const decided = orgConfigDecider.decide({ type: 'ChangeSsoSettings', settings: command.settings }, state);
    const after = ssoSettingsOf(decided.reduce(orgConfigDecider.evolve, state));
    if (decided.length === 0) return { sso: after, changed: false };

    try {
      await this.events.append(stream, this.aggregates.stamp(decided.map((e) => sealSecrets(e, this.keyring)), command.context), expected);
    } catch (error) {
      if (error instanceof WrongExpectedRevisionError) {
        throw concurrentUpdateConflict(`The configuration of ${command.orgId} was changed concurrently (an apply or another change); try again`);
      }
      throw error;
    }
    // Read your writes: this process's sign-ins and reads see the change at once (others on their next poll).
    await this.projections.catchUp(CATALOG_PROJECTION);
    return { sso: after, changed: true };
  }
}
