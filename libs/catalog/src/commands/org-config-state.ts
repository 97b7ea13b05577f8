import type { HandleOptions, Handled } from '#warden/eventstore';
import { type CommandContext, concurrentUpdateConflict, type Decider, isConcurrentUpdateConflict } from '#warden/kernel';
import type { Keyring } from '#warden/platform';
import type { AggregateStore, ProjectionHost } from '#warden/storage';
import type { CatalogEvent } from '../domain/catalog.events.js';
import { orgConfigStream } from '../domain/catalog.streams.js';
import { type CatalogState, type OrgConfigCommand, orgConfigDecider } from '../domain/org-config.decider.js';
import { CATALOG_PROJECTION } from '../projections/catalog.projection.js';
import { openSecrets, sealSecrets } from '../secrets/catalog-secrets.js';

/** The configuration as changes are decided on it, and how many events it was folded from. */
export interface OrgConfigState {
  readonly catalog: CatalogState;
  readonly events: number;
}

/**
 * A change of the configuration. `plannedOn`: the change was planned on the state of that many
 * events (an apply, whose report is planned before it is appended); any change since then makes
 * it a concurrent update, not a change decided again on a configuration its author never saw.
 */
export interface OrgConfigChange {
  readonly command: OrgConfigCommand;
  readonly plannedOn?: number;
}

type OrgConfigAggregate = Decider<OrgConfigChange, OrgConfigState, CatalogEvent>;

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
      decider: {
        eventTypes: orgConfigDecider.eventTypes,
        initialState: { catalog: orgConfigDecider.initialState, events: 0 },
        decide({ command, plannedOn }, state) {
          if (plannedOn !== undefined && plannedOn !== state.events) throw concurrentUpdateConflict('The configuration changed after this change was planned');
          return orgConfigDecider.decide(command, state.catalog);
        },
        evolve: (state, event) => ({ catalog: orgConfigDecider.evolve(state.catalog, openSecrets(event, keyring)), events: state.events + 1 }),
      },
      options: { seal: (event) => sealSecrets(event, keyring), retries: 0 },
    };
    aggregates.set(keyring, made);
  }
  return made;
}

/** The configuration's current state, secrets opened (what an apply is planned on). */
export function readOrgConfig(deps: { keyring: Keyring; aggregates: AggregateStore }, orgId: string): Promise<OrgConfigState> {
  return deps.aggregates.state(orgConfigStream(orgId), orgConfigAggregate(deps.keyring).decider);
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
): Promise<Handled<CatalogEvent, OrgConfigState>> {
  const { decider, options } = orgConfigAggregate(deps.keyring);
  let handled: Handled<CatalogEvent, OrgConfigState>;
  try {
    handled = await deps.aggregates.handle(orgConfigStream(orgId), decider, { command }, context, options);
  } catch (error) {
    if (isConcurrentUpdateConflict(error)) {
      throw concurrentUpdateConflict(`The configuration of ${orgId} was changed concurrently (an apply or another change); try again`);
    }
    throw error;
  }
  if (handled.events.length > 0) await deps.projections.catchUp(CATALOG_PROJECTION);
  return handled;
}
