import { Inject, Injectable } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { DEFAULT_SCORE_SETTINGS, GetCatalogSettingsQuery, GetEverEntitiesQuery, type Penalty } from '#warden/catalog';
import type { ItemIdentifier } from '#warden/ingestion';
import type { ReadStore } from '#warden/readstore';
import { READ_STORE } from '#warden/storage';
import { actionedCount, userScore } from '../domain/user-score.js';
import { USER_SCORES, type UserScoreDoc, userScoreDocId } from '../scores/user-scores.read-model.js';
import type { UserScore } from './user-standing.ports.js';

/**
 * Enforcement's side of USER_SCORE (user-standing.ports.ts): the score from the read model's
 * facts and the configuration in force now, the `scores:` weights and thresholds, and each
 * action's current penalty (an action archived since keeps the penalty it had last; one the
 * organization never had counts as NONE).
 */
@Injectable()
export class UserScoresReader implements UserScore {
  constructor(
    @Inject(READ_STORE) private readonly readStore: ReadStore,
    private readonly queries: QueryBus,
  ) {}

  async score(orgId: string, user: ItemIdentifier): Promise<number> {
    const facts = await this.readStore.get<UserScoreDoc>(USER_SCORES, userScoreDocId(orgId, user));
    if (!facts || actionedCount(facts) === 0) return userScore(facts, DEFAULT_SCORE_SETTINGS, () => 'NONE');
    const [actions, settings] = await Promise.all([
      this.queries.execute(new GetEverEntitiesQuery(orgId, 'action')),
      this.queries.execute(new GetCatalogSettingsQuery(orgId, 'scores')),
    ]);
    const penalties = new Map<string, Penalty>(actions.map((a) => [a.id, a.penalty]));
    return userScore(facts, settings ?? DEFAULT_SCORE_SETTINGS, (actionId) => penalties.get(actionId) ?? 'NONE');
  }
}
