import { Command } from '@nestjs/cqrs';
import type { CommandContext } from '#warden/kernel';
import type { SsoSettings } from '../../domain/catalog.model.js';

export interface ChangeSsoSettingsResult {
  /** The settings in force afterwards. The certificate is in plaintext: callers show only its fingerprint. */
  readonly sso: SsoSettings;
  /** False: the settings were already so and nothing was recorded. */
  readonly changed: boolean;
}

/**
 * Replaces an organization's `sso:` settings outside a configuration file (the console). The
 * settings are checked as the file's are; without `cert` the stored certificate is kept.
 */
export class ChangeSsoSettingsCommand extends Command<ChangeSsoSettingsResult> {
  constructor(
    readonly orgId: string,
    readonly settings: Readonly<Record<string, unknown>>,
    readonly context: CommandContext,
  ) {
    super();
  }
}
