import { Inject, Injectable } from '@nestjs/common';
import { type Clock, type CommandContext, deterministicId } from '#warden/kernel';
import { CLOCK } from '#warden/platform';
import { AggregateStore } from '#warden/storage';
import { dailyActionCapDecider, DailyActionCapReached } from '../domain/daily-action-cap.decider.js';
import { dailyActionsStream } from '../domain/evaluation.streams.js';
import { utcDay } from '../domain/rule-selection.js';

/**
 * Evaluations of one rule contend for its day's stream when many items pass it at once; each
 * lost race re-reads and decides again, as often as the evaluating worker has items in flight.
 */
const CONTENTION_RETRIES = 1000;

/**
 * maxDailyActions, decided on the write side by the daily action cap decider. The event id is
 * derived from rule, day and item content, so a re-run, or identical content re-submitted, counts
 * once.
 */
@Injectable()
export class DailyActionCap {
  constructor(
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly aggregates: AggregateStore,
  ) {}

  /** True when the item may fire the rule today (and is now counted); false once capped. */
  async take(
    context: CommandContext,
    rule: { id: string; maxDailyActions: number },
    item: { id: string; typeId: string },
    version: number,
    /** The digest of the item's content (item-content.ts). */
    content: string,
  ): Promise<boolean> {
    const day = utcDay(this.clock.now());
    const eventId = deterministicId('daily-action', context.orgId, rule.id, day, item.typeId, item.id, 'content', content);
    try {
      await this.aggregates.handle(
        dailyActionsStream(context.orgId, rule.id, day),
        dailyActionCapDecider,
        { type: 'CountDailyAction', ruleId: rule.id, item: { id: item.id, typeId: item.typeId }, version, content, max: rule.maxDailyActions },
        context,
        { retries: CONTENTION_RETRIES, eventIds: () => eventId },
      );
      return true;
    } catch (error) {
      if (error instanceof DailyActionCapReached) return false;
      throw error;
    }
  }
}
