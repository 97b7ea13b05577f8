import type { EventStore, ExpectedRevision } from '#warden/eventstore';
import { deciderEvents } from '#warden/kernel';
import type { Keyring } from '#warden/platform';
import { orgConfigStream } from '../domain/catalog.streams.js';
import { type CatalogState, orgConfigDecider } from '../domain/org-config.decider.js';
import { openSecrets } from '../secrets/catalog-secrets.js';

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
