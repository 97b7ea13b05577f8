import type { HandleOptions, Handled } from '#warden/eventstore';
import { type CommandContext, concurrentUpdateConflict, type Decider, isConcurrentUpdateConflict } from '#warden/kernel';
import type { AggregateStore, Keyring, ProjectionHost } from '#warden/storage';
import type { CatalogEvent } from '../domain/catalog.events.js';
import { orgConfigStream } from '../domain/catalog.streams.js';
import { type CatalogState, type OrgConfigCommand, orgConfigDecider } from '../domain/org-config.decider.js';
import { CATALOG_PROJECTION } from '../projections/catalog.projection.js';
import { openSecrets, sealSecrets } from '../secrets/catalog-secrets.js';

type OrgConfigAggregate = Decider<OrgConfigCommand, CatalogState, CatalogEvent>;

const aggregates = new WeakMap<Keyring, { decider: OrgConfigAggregate; options: HandleOptions }>();

/**
 * The organization's configuration aggregate: folded with its secrets opened (a change is judged
 * on plaintext, since each sealing uses a fresh IV) and appended sealed. Made once per keyring:
 * the aggregate cache keys states on `evolve`, so a wrapper per call would fold the stream again
 * each time. No retry: a concurrent apply or console change in another process is reported (409).
 */
export function orgConfigAggregate(keyring: Keyring): { decider: OrgConfigAggregate; options: HandleOptions } {
  let made = aggregates.get(keyring);
  if (!made) {
    made = {
      decider: { ...orgConfigDecider, evolve: (state, event) => orgConfigDecider.evolve(state, openSecrets(event, keyring)) },
      options: { seal: (event) => sealSecrets(event, keyring), retries: 0 },
    };
    aggregates.set(keyring, made);
  }
  return made;
}

/** The configuration's current state, secrets opened, and its revision (what an apply is planned on). */
export function readOrgConfig(deps: { keyring: Keyring; aggregates: AggregateStore }, orgId: string): Promise<{ state: CatalogState; revision: number }> {
  return deps.aggregates.stateAt(orgConfigStream(orgId), orgConfigAggregate(deps.keyring).decider);
}

/**
 * Decides a console change on the configuration as it is now and appends it sealed, expecting the
 * revision it was decided on: this process's changes are decided one after the other, and a
 * concurrent apply or console change elsewhere makes it a 409, never a lost update. Then the
 * catalog is caught up, so this process reads its own write at once.
 */
export async function changeOrgConfig(
  deps: { keyring: Keyring; aggregates: AggregateStore; projections: ProjectionHost },
  orgId: string,
  command: OrgConfigCommand,
  context: CommandContext,
): Promise<Handled<CatalogEvent, CatalogState>> {
  const { decider, options } = orgConfigAggregate(deps.keyring);
  let handled: Handled<CatalogEvent, CatalogState>;
  try {
    handled = await deps.aggregates.handle(orgConfigStream(orgId), decider, command, context, options);
  } catch (error) {
    if (isConcurrentUpdateConflict(error)) {
      throw concurrentUpdateConflict(`The configuration of ${orgId} was changed concurrently (an apply or another change); try again`);
    }
    throw error;
  }
  if (handled.events.length > 0) await deps.projections.catchUp(CATALOG_PROJECTION);
  return handled;
}
