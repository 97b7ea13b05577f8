import { Inject, Injectable, Optional } from '@nestjs/common';
import type { ReadStore } from '#warden/readstore';
import { ProjectionHost, READ_STORE, KEYRING, type Keyring, withSealedUrl } from '#warden/storage';
import type { CatalogEntities, EntityKind } from '../domain/catalog.events.js';
import type {
  AppealSettings,
  CallbackDefinition,
  InboundTopicSettings,
  OrgSettings,
  PartialItemsSettings,
  ScoreSettings,
  SsoSettings,
  StrikeSettings,
  TransparencySettings,
} from '../domain/catalog.model.js';
import { withOrgSettingsDefaults } from '../domain/org-settings.upcasters.js';
import { CATALOG_PROJECTION } from '../projections/catalog.projection.js';
import {
  CATALOG_ENTITIES,
  CATALOG_SETTINGS,
  CATALOG_VERSIONS,
  type CatalogEntityDoc,
  catalogScope,
  type CatalogVersionDoc,
  settingsDocId,
} from '../projections/catalog.read-model.js';

/** Organizations x entity kinds kept; past it the cache starts over (it refills on demand). */
const CACHE_MAX = 10_000;
/**
 * An answer kept by its version is read again after this long all the same: a process of an
 * earlier release running the catalog projection moves the checkpoint without the versions.
 */
const MAX_AGE_MS = 60_000;

/**
 * Reads an organization's live (not archived) catalog entities from the read model. Internal to
 * the catalog: other modules ask through GetLiveEntitiesQuery and GetCatalogSettingsQuery.
 */
@Injectable()
export class CatalogReader {
  /**
   * Live entities and settings sections, each with the catalog projection's stored checkpoint it
   * was last known good at, and the version of its organization's kind or section it was read at.
   */
  private readonly cache = new Map<string, { checkpoint: number; version: string; readAt: number; value: Promise<unknown> }>();
  /** The checkpoint as read in this turn of the event loop (see catalogCheckpoint). */
  private checkpointRead: { readonly value: Promise<number>; readonly localProgress: number } | undefined;

  constructor(
    @Inject(READ_STORE) private readonly readStore: ReadStore,
    @Inject(KEYRING) private readonly keyring: Keyring,
    @Optional() @Inject(ProjectionHost) private readonly projections?: Pick<ProjectionHost, 'localProgress' | 'catchUp'>,
  ) {}

  /**
   * Every item submission asks for its organization's item types, so the answer is cached for as
   * long as the read model cannot have changed: every write to it moves the catalog projection's
   * checkpoint in the same commit (on MongoDB, just after), wherever the projection runs. The
   * checkpoint is read before the documents, so a cached answer is never older than its key.
   * Cached documents are sealed (see withSealedCallback) and frozen once, when read: callers share
   * them.
   */
  async live<K extends EntityKind>(orgId: string, kind: K): Promise<Array<CatalogEntityDoc<K>>> {
    return this.read(orgId, kind, false);
  }

  /** Live and archived entities alike, each as last applied (what was acted on under an entity since archived). */
  async everEntities<K extends EntityKind>(orgId: string, kind: K): Promise<Array<CatalogEntities[K]>> {
    return (await this.read(orgId, kind, true)).map((d) => d.entity);
  }

  private async read<K extends EntityKind>(orgId: string, kind: K, withArchived: boolean): Promise<Array<CatalogEntityDoc<K>>> {
    const docs = await this.cached(`${kind}\u0000${orgId}\u0000${withArchived ? 'ever' : 'live'}`, catalogScope(orgId, `entity:${kind}`), () =>
      this.readStore
        .find<CatalogEntityDoc<K>>(CATALOG_ENTITIES, withArchived ? { orgId, kind } : { orgId, kind, archived: false }, {
          sort: [{ field: 'id', direction: 'asc' }],
        })
        .then((found) => found.map((d) => deepFreeze({ ...d, entity: this.withSealedCallback(d.entity) }))),
    );
    return docs.slice();
  }

  /**
   * What `load` reads, kept while the catalog projection's checkpoint stays where it was read, and
   * past it while the version of its organization's kind or section (`scope`) stays: every write of
   * any organization's catalog moves the checkpoint, and clearing every answer then made one
   * organization's console edits re-read another's 10 MB of rules (230 ms of the HTTP thread each).
   * A scope without a version document (a read model built before them) is kept to its checkpoint.
   */
  private async cached<T>(key: string, scope: string, load: () => Promise<T>): Promise<T> {
    // The projections start after the server listens (docs/operations.md, "Start-up"): until this
    // process has caught the catalog up once, the read model may lag the log by a whole backlog
    // (a restored log, a restart after a crash), and every answer depends on the catalog.
    if (this.projections && this.projections.localProgress(CATALOG_PROJECTION) === 0) await this.projections.catchUp(CATALOG_PROJECTION);
    const checkpoint = await this.catalogCheckpoint();
    const known = this.cache.get(key);
    const now = Date.now();
    const fresh = known !== undefined && now - known.readAt < MAX_AGE_MS;
    if (known && fresh && known.checkpoint === checkpoint) return known.value as Promise<T>;
    // Read after the checkpoint, before the documents. A version past the checkpoint is not trusted:
    // on MongoDB a batch's documents land collection by collection and its checkpoint last, so the
    // version may be there before the documents it names (then the checkpoint keys the answer).
    const position = (await this.readStore.get<CatalogVersionDoc>(CATALOG_VERSIONS, scope))?.position;
    const version = position === undefined || position > checkpoint ? `checkpoint ${checkpoint}` : `position ${position}`;
    if (known && fresh && known.version === version) {
      known.checkpoint = checkpoint;
      return known.value as Promise<T>;
    }
    if (this.cache.size >= CACHE_MAX) this.cache.clear();
    const loading = load();
    this.cache.set(key, { checkpoint, version, readAt: now, value: loading });
    loading.catch(() => this.cache.get(key)?.value === loading && this.cache.delete(key));
    return loading;
  }

  /**
   * The catalog projection's checkpoint, read once per turn of the event loop: one read of several
   * kinds (GetLiveCatalogQuery) asks for it once per kind, and the requests of one turn many times
   * over, and each read of the checkpoint was a query of its own (4 % of the api's time per report,
   * when a report asked for the catalog three times). Within a turn, the value read first is as
   * good as one read concurrently; a catch-up or commit of the catalog projection in this process
   * (after an apply, or for an item type not known yet) makes the next read a fresh one, so a
   * process reads what it caught up to at once. Without a projection host (unit tests) every call
   * reads.
   */
  private catalogCheckpoint(): Promise<number> {
    const localProgress = this.projections?.localProgress(CATALOG_PROJECTION);
    const memo = this.checkpointRead;
    if (memo && memo.localProgress === localProgress) return memo.value;
    const value = this.readStore.checkpoint(CATALOG_PROJECTION);
    if (localProgress === undefined) return value;
    const read = { value, localProgress };
    this.checkpointRead = read;
    setImmediate(() => {
      if (this.checkpointRead === read) this.checkpointRead = undefined;
    });
    return value;
  }

  async liveEntities<K extends EntityKind>(orgId: string, kind: K): Promise<Array<CatalogEntities[K]>> {
    return (await this.live(orgId, kind)).map((d) => d.entity);
  }

  /** An organization's settings section as last applied (secrets sealed); undefined if never set. */
  async settings<S extends keyof CatalogSettings>(orgId: string, section: S): Promise<CatalogSettings[S] | undefined> {
    // Asked for by every strike applied and every delivery (the strikes section): cached as the
    // entities are, frozen, shared by the callers.
    return this.cached(`settings\u0000${orgId}\u0000${section}`, catalogScope(orgId, `settings:${section}`), async () => {
      const value = (await this.readStore.get<{ value: CatalogSettings[S] }>(CATALOG_SETTINGS, settingsDocId(orgId, section)))?.value;
      if (value === undefined) return undefined;
      // A read model built by an earlier release keeps org settings as they were recorded then.
      if (section === 'settings') return deepFreeze(withOrgSettingsDefaults(value as OrgSettings) as CatalogSettings[S]);
      return deepFreeze(this.withSealedCallback(value));
    });
  }

  /**
   * A read model built by an earlier release may still hold a callback URL in plaintext (until
   * `rebuild-read-models`): it leaves the catalog sealed all the same, so that no delivery event
   * records it in plaintext again.
   */
  private withSealedCallback<T>(value: T): T {
    const callback = (value as { callback?: CallbackDefinition | null }).callback;
    if (!callback) return value;
    const sealed = withSealedUrl(callback, this.keyring);
    return sealed === callback ? value : { ...value, callback: sealed };
  }
}

/** The settings sections of the catalog read model, as their events carry them. */
export interface CatalogSettings {
  settings: OrgSettings;
  strikes: StrikeSettings;
  appeals: AppealSettings;
  sso: SsoSettings;
  scores: ScoreSettings;
  inboundTopic: InboundTopicSettings;
  /** Null: the section was left out; URL and header values sealed. */
  partialItems: PartialItemsSettings | null;
  transparency: TransparencySettings;
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}
