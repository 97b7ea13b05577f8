import { Logger } from '@nestjs/common';
import type { CommandBus } from '@nestjs/cqrs';
import { SendAppealCallbackCommand } from '#warden/callbacks';
import { type EventStore, eventProjection, orderingKey, type Projection } from '#warden/eventstore';
import { type CommandContext, DomainError, type RecordedOf, recordedAs } from '#warden/kernel';
import type { ReviewJobDecided } from '#warden/review/contracts';
import type { AggregateStore } from '#warden/storage';
import { appealDecider } from '../domain/appeal.decider.js';
import type { AppealSubmitted } from '../domain/appeal.events.js';
import { appealStream } from '../domain/appeal.streams.js';
import { appellantOf } from '../domain/appellant.js';

export const APPEAL_DECISION_REACTOR = 'appeal-decisions';
const logger = new Logger('appeals');

export interface AppealDecisionDeps {
  readonly commands: CommandBus;
  readonly aggregates: AggregateStore;
  readonly events: EventStore;
}

const OUTCOMES = { ACCEPT_APPEAL: 'ACCEPT', REJECT_APPEAL: 'REJECT' } as const;

/**
 * An appeal job's decision becomes the appeal's outcome: AppealDecided on the appeal's stream,
 * then the appeal decision callback (docs/callbacks.md, "The bodies") through the callbacks module, which signs, retries
 * and dead-letters it under a delivery id derived from the appeal id. Both steps are idempotent,
 * so a re-run after a crash between them only sends what was not sent.
 */
async function decideAppeal(deps: AppealDecisionDeps, event: RecordedOf<ReviewJobDecided>): Promise<void> {
  const decided = event.data;
  if (!decided.appealId || (decided.type !== 'ACCEPT_APPEAL' && decided.type !== 'REJECT_APPEAL') || !decided.actor) return;
  const orgId = event.metadata.orgId;
  const stream = appealStream(orgId, decided.appealId);
  const context: CommandContext = { orgId, correlationId: event.metadata.correlationId, causationId: event.id, actor: 'appeals' };
  const decision = OUTCOMES[decided.type];
  await deps.aggregates.handle(
    stream,
    appealDecider,
    {
      type: 'DecideAppeal',
      decided: {
        appealId: decided.appealId,
        decision,
        jobId: decided.jobId,
        decisionId: decided.decisionId,
        decidedBy: decided.actor,
        decidedAt: decided.decidedAt,
      },
    },
    context,
  );
  const [first] = await deps.events.readStream(stream, { maxCount: 1 });
  const submitted = first && recordedAs<AppealSubmitted>(first, 'AppealSubmitted');
  if (!submitted) return;
  const appeal = submitted.data;
  try {
    await deps.commands.execute(
      new SendAppealCallbackCommand({ appealId: appeal.appealId, item: appeal.actionedItem, appealedBy: appellantOf(submitted), decision }, context),
    );
  } catch (error) {
    // No appeals callback configured, or an item type the organization never had (nothing to name
    // the item by): the outcome is recorded, the callback cannot be sent, and a retry would not
    // change that. Rethrowing would hold up every later appeal outcome behind this one.
    if (unsendable(error)) {
      logger.warn({ msg: 'appeal decision callback not sent', appealId: appeal.appealId, reason: (error as Error).message });
      return;
    }
    throw error;
  }
}

function unsendable(error: unknown): boolean {
  if (!(error instanceof DomainError)) return false;
  return error.kind === 'conflict' || (error.kind === 'invalid-user-input' && error.details.some((d) => d.pointer === '/item/typeId'));
}

export function appealDecisionReactor(deps: AppealDecisionDeps): Projection {
  return eventProjection<ReviewJobDecided>({
    name: APPEAL_DECISION_REACTOR,
    reactor: true,
    collections: [],
    eventTypes: ['ReviewJobDecided'],
    // The appellant is sealed in the appeal; the callback names them.
    needsPersonalData: true,
    // By the appeal its outcome goes to (decisions of other jobs pass through, by their job).
    keyOf: (event) => {
      const { appealId } = event.data;
      return orderingKey(event, appealId ? `appeal:${appealId}` : event.streamName);
    },
    apply: (event) => decideAppeal(deps, event),
  });
}
