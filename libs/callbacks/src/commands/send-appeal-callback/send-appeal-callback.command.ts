import { Command } from '@nestjs/cqrs';
import type { CommandContext } from '#warden/kernel';
import type { AppealDecision } from '../../domain/appeal-callback-body.js';

export interface AppealDecisionToSend {
  readonly appealId: string;
  readonly item: { readonly id: string; readonly typeId: string };
  readonly appealedBy: { readonly id: string; readonly typeId: string };
  readonly decision: AppealDecision;
}

export interface AppealCallbackRequested {
  readonly deliveryId: string;
  /** False when this appeal's decision was sent before (the same delivery; redeliver to send again). */
  readonly created: boolean;
}

/** Sends an appeal decision callback (docs/callbacks.md, "The bodies") to the organization's appeal callback URL. */
export class SendAppealCallbackCommand extends Command<AppealCallbackRequested> {
  constructor(
    readonly decision: AppealDecisionToSend,
    readonly context: CommandContext,
  ) {
    super();
  }
}
