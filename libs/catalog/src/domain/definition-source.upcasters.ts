import type { EventMetadata, JsonObject, Upcaster } from '#warden/kernel';

/**
 * QueueDefined v2 → v3 and SsoSettingsChanged v2 → v3: v3 records who defined a
 * queue or the SSO settings, an applied file or the console. Before then both wrote these events
 * without saying so, but the metadata's actor does: the CLI's apply is `cli`, a console change is
 * `user:<id>`. So an old console change still reads as the console's (apply --dry-run shows it as
 * drift) and everything else as the file's, its name unknown (null).
 */
const sourceOf = (metadata: EventMetadata): JsonObject =>
  metadata.actor.startsWith('user:') ? { managedBy: 'console', file: null } : { managedBy: 'file', file: null };

export const definitionSourceUpcasters: Upcaster[] = ['QueueDefined', 'SsoSettingsChanged'].map((eventType) => ({
  eventType,
  fromVersion: 2,
  upcast: (data, metadata) => ({ source: sourceOf(metadata), ...data }),
}));
