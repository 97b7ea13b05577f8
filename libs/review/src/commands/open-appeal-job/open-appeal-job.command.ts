import { Command } from '@nestjs/cqrs';
import type { CommandContext } from '#warden/kernel';

/** An appeal as review needs it (the appeals module's AppealSubmitted, without what is sealed). */
export interface AppealForReview {
  readonly appealId: string;
  readonly appealedAt: string;
  /** The actioned item, with the data the platform sent (what appeal routing rules see). */
  readonly item: { readonly id: string; readonly typeId: string; readonly data: { readonly [field: string]: unknown } };
  readonly actionsTaken: readonly string[];
  readonly violatingPolicyIds: readonly string[];
}

/**
 * Opens the review job of an appeal, once per appeal id: in the queue the first passing appeal
 * routing rule picks, else the queue marked `isAppealsDefault`, else the default queue. Sent by
 * the appeals module's routing reactor; a re-run opens nothing more.
 */
export class OpenAppealJobCommand extends Command<{ jobId: string; queueId: string }> {
  constructor(
    readonly appeal: AppealForReview,
    readonly context: CommandContext,
  ) {
    super();
  }
}
