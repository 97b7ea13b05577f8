import { type EventStore, type ExpectedRevision, WrongExpectedRevisionError } from '#warden/eventstore';
import { type CommandContext, concurrentUpdateConflict, deciderEvents } from '#warden/kernel';
import type { Keyring } from '#warden/platform';
import type { AggregateStore, ProjectionHost } from '#warden/storage';
import type { CatalogEvent } from '../domain/catalog.events.js';
import { orgConfigStream } from '../domain/catalog.streams.js';
import { type CatalogState, orgConfigDecider } from '../domain/org-config.decider.js';
import { CATALOG_PROJECTION } from '../projections/catalog.projection.js';
import { openSecrets, sealSecrets } from '../secrets/catalog-secrets.js';

/**
 * An organization's configuration as a change is decided on it: the state with its secrets opened
 * (a change is judged on plaintext, since each sealing uses a fresh IV), and the revision its
 * append must expect, so that a concurrent apply or console change is a conflict.
 */
export async function readOrgConfig(
  events: EventStore,
  keyring: Keyring,
  orgId: string,
): Promise<{ stream: string; state: CatalogState; expected: ExpectedRevision }> {
  const stream = orgConfigStream(orgId);
  const recorded = await events.readStream(stream);
  const state = deciderEvents(orgConfigDecider, stream, recorded)
    .map((e) => openSecrets(e, keyring))
    .reduce(orgConfigDecider.evolve, orgConfigDecider.initialState);
  const expected: ExpectedRevision = recorded.length === 0 ? 'no_stream' : recorded[recorded.length - 1]!.revision;
  return { stream, state, expected };
}

/**
 * Appends a console change decided on `readOrgConfig`'s state: sealed again, expecting the
 * revision it was decided on (a concurrent apply or console change makes it a 409, never a lost
 * update), then the catalog caught up so this process reads its own write at once.
 */
export async function recordOrgConfigChange(
  deps: { events: EventStore; keyring: Keyring; aggregates: AggregateStore; projections: ProjectionHost },
  read: { stream: string; expected: ExpectedRevision },
  decided: readonly CatalogEvent[],
  orgId: string,
  context: CommandContext,
): Promise<void> {
  try {
    await deps.events.append(read.stream, deps.aggregates.stamp(decided.map((e) => sealSecrets(e, deps.keyring)), context), read.expected);
  } catch (error) {
    if (error instanceof WrongExpectedRevisionError) {
      throw concurrentUpdateConflict(`The configuration of ${orgId} was changed concurrently (an apply or another change); try again`);
    }
    throw error;
  }
  await deps.projections.catchUp(CATALOG_PROJECTION);
}
