import { Inject, Injectable, Optional } from '@nestjs/common';
import type { ItemTypeDefinition } from '#warden/catalog';
import type { Clock } from '#warden/kernel';
import { CLOCK, GUARDED_HTTP_CLIENT, type GuardedHttpClient, OutboundError } from '#warden/platform';
import type { ReadStore } from '#warden/readstore';
import { ProjectionHost, READ_STORE } from '#warden/storage';
import type { EvaluatedItem, MediaResult, SignalContext } from '../domain/evaluation.model.js';
import { MAX_ANSWER_BYTES } from '../domain/signals/http.signal.js';
import {
  CREATOR_SUBMISSIONS,
  countWithin,
  creatorSubmissionsDocId,
  type CreatorSubmissionsDoc,
  creatorSubmissionsProjection,
} from '../projections/creator-submissions.projection.js';
import type { CatalogSnapshot } from './catalog-snapshots.js';
import { RegexPool } from './regex-pool.js';
import { USER_STANDING, type UserStanding } from './user-standing.js';

/** What the signals of one evaluation see of the item: its fields as evaluated and who created it. */
export interface ContextItem {
  readonly id: string;
  readonly typeId: string;
  readonly data: { readonly [field: string]: unknown };
  readonly creator: { readonly id: string; readonly typeId: string } | null;
}

export const NO_MEDIA: ReadonlyMap<string, MediaResult> = new Map();

/**
 * The SignalContext of one evaluation (domain/evaluation.model.ts): how the signals of the pure
 * condition evaluator reach what is outside it — the catalog snapshot's banks, the item's hashed
 * media, creator-submission counts (rules' read model), a user's strikes and score (enforcement,
 * through the USER_STANDING port), the guarded outbound client (HTTP signals), the thread that
 * matches costly regular expressions and term lists (RegexPool) and the clock. Reads only.
 */
@Injectable()
export class SignalContextFactory {
  constructor(
    @Inject(READ_STORE) private readonly readStore: ReadStore,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(ProjectionHost) private readonly projections: ProjectionHost,
    @Inject(GUARDED_HTTP_CLIENT) private readonly http: GuardedHttpClient,
    @Inject(RegexPool) private readonly regexes: RegexPool,
    @Optional() @Inject(USER_STANDING) private readonly standing?: UserStanding,
  ) {}

  create(
    orgId: string,
    item: ContextItem,
    itemType: ItemTypeDefinition,
    snapshot: Pick<CatalogSnapshot, 'textBanks' | 'hashBanks'>,
    version: number,
    media: ReadonlyMap<string, MediaResult>,
    partial = false,
  ): SignalContext {
    const evaluated: EvaluatedItem = {
      orgId,
      id: item.id,
      typeId: item.typeId,
      itemType,
      data: item.data,
      creator: item.creator,
      version,
      ...(partial ? { partial } : {}),
    };
    return {
      media: (url) => media.get(url),
      orgId,
      item: evaluated,
      textBank: (bankId) => snapshot.textBanks.get(bankId),
      hashBanks: snapshot.hashBanks,
      creatorSubmissionCount: async (creator, windowSeconds) => {
        // The count must include every submission already in the log, this one too: after a
        // restart, or while a burst keeps the read model behind, it would otherwise count too few.
        await this.projections.catchUp(creatorSubmissionsProjection.name);
        return countWithin(
          await this.readStore.get<CreatorSubmissionsDoc>(CREATOR_SUBMISSIONS, creatorSubmissionsDocId(orgId, creator)),
          windowSeconds,
          this.clock.now(),
        );
      },
      // Answered by the enforcement module (USER_STANDING, user-standing.ts); without it the leaves are unknown.
      ...(this.standing && this.userStanding(orgId, this.standing)),
      postJson: async (url, body, timeoutMs) => {
        const res = await this.http
          .request({
            method: 'POST',
            url,
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify(body),
            timeoutMs,
            maxBytes: MAX_ANSWER_BYTES,
          })
          .catch((error: unknown) => {
            if (error instanceof OutboundError && error.reason === 'too-large') throw new Error(`HTTP signal answered more than ${MAX_ANSWER_BYTES} bytes`);
            throw error;
          });
        if (res.status < 200 || res.status >= 300) throw new Error(`HTTP signal answered ${res.status}`);
        return JSON.parse(res.body.toString('utf8')) as unknown;
      },
      now: () => this.clock.now(),
      matchRegex: (pattern, text) => this.regexes.test(orgId, pattern, text),
    };
  }

  private userStanding(orgId: string, standing: UserStanding): Pick<SignalContext, 'userStrikeCount' | 'userScore'> {
    return { userStrikeCount: (user) => standing.strikeCount(orgId, user), userScore: (user) => standing.score(orgId, user) };
  }
}
