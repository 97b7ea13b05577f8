import { Command } from '@nestjs/cqrs';
import type { CommandContext } from '#warden/kernel';
import type { Permission } from '#warden/identity/contracts';
import type { DecisionRequest } from '../../domain/decision-check.js';
import type { DecisionType } from '../../domain/review-job.events.js';

export interface DecisionSummary {
  readonly jobId: string;
  readonly decisionId: string;
  readonly type: DecisionType;
  /** The action callbacks the decision requested (one per chosen customer-defined action). */
  readonly deliveryIds: readonly string[];
}

/** A moderator's decision on a job they hold the live lock of; it closes the job. */
export class DecideJobCommand extends Command<DecisionSummary> {
  constructor(
    readonly jobId: string,
    readonly lockToken: string,
    readonly decision: DecisionRequest,
    readonly moderator: { readonly userId: string; readonly email: string; readonly permissions: readonly Permission[] },
    readonly context: CommandContext,
  ) {
    super();
  }
}
