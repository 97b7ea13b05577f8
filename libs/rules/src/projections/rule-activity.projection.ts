import { eventProjection, type ProjectionContext } from '#warden/eventstore';
import { parseStreamName, type RecordedOf } from '#warden/kernel';
import type { ItemEvaluated, RuleDailyActionCounted } from '../domain/evaluation.events.js';
import { utcDay } from '../domain/rule-selection.js';
import {
  RECENT_MATCHES,
  RULE_DAILY_ACTIONS,
  RULE_MATCHES,
  type RuleDailyActionsDoc,
  ruleDailyActionsDocId,
  type RuleMatchesDoc,
  ruleMatchesDocId,
} from './rule-activity.read-model.js';

export const RULE_ACTIVITY_PROJECTION = 'rule-activity';

/**
 * The rules page's view of each rule: its latest matches and what it did today. A batch delivered
 * again after a crash changes nothing: the unit of work leaves alone every document that already
 * reflects an event (ProjectionContext's contract).
 */
export const ruleActivityProjection = eventProjection<ItemEvaluated | RuleDailyActionCounted>({
  name: RULE_ACTIVITY_PROJECTION,
  collections: [RULE_MATCHES, RULE_DAILY_ACTIONS],
  eventTypes: ['ItemEvaluated', 'RuleDailyActionCounted'],
  needsPersonalData: false,
  ownThread: true,
  async apply(recorded, ctx) {
    if (recorded.type === 'RuleDailyActionCounted') return counted(recorded, ctx);
    return evaluated(recorded, ctx);
  },
});

async function evaluated(event: RecordedOf<ItemEvaluated>, ctx: ProjectionContext): Promise<void> {
  const { item, version, environment, rules, actions } = event.data;
  // A backtest asks what a rule would have done: it matched nothing for real.
  if (environment === 'BACKTEST') return;
  const orgId = event.metadata.orgId;
  const evaluatedAt = event.metadata.occurredAt;
  for (const rule of rules) {
    if (rule.outcome !== 'passed') continue;
    const actionIds = actions.filter((a) => a.rules.some((r) => r.id === rule.id)).map((a) => a.id);
    const capped = rule.capped === true;
    const id = ruleMatchesDocId(orgId, rule.id);
    const doc = (await ctx.get<RuleMatchesDoc>(RULE_MATCHES, id)) ?? { orgId, ruleId: rule.id, matches: [] };
    const match = { itemId: item.id, itemTypeId: item.typeId, version, evaluatedAt, environment, actionIds, capped };
    ctx.put(RULE_MATCHES, id, { ...doc, matches: [match, ...doc.matches].slice(0, RECENT_MATCHES) } as never);
    if (environment === 'LIVE' && !capped && actionIds.length > 0) {
      await updateDay(ctx, orgId, rule.id, utcDay(new Date(evaluatedAt)), (d) => ({ ...d, acted: d.acted + 1 }));
    }
  }
}

async function counted(event: RecordedOf<RuleDailyActionCounted>, ctx: ProjectionContext): Promise<void> {
  const [orgId, ruleId, day] = parseStreamName(event.streamName).idParts as [string, string, string];
  // The stream is the rule's day: its length is the count, whatever else was redelivered.
  await updateDay(ctx, orgId, ruleId, day, (d) => ({ ...d, counted: Math.max(d.counted, event.revision + 1) }));
}

async function updateDay(
  ctx: ProjectionContext,
  orgId: string,
  ruleId: string,
  day: string,
  change: (doc: RuleDailyActionsDoc) => RuleDailyActionsDoc,
): Promise<void> {
  const id = ruleDailyActionsDocId(orgId, day, ruleId);
  const doc = (await ctx.get<RuleDailyActionsDoc>(RULE_DAILY_ACTIONS, id)) ?? { orgId, ruleId, day, counted: 0, acted: 0 };
  ctx.put(RULE_DAILY_ACTIONS, id, change(doc) as never);
}
