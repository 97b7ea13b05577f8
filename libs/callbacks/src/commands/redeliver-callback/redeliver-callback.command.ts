import { Command } from '@nestjs/cqrs';

export type RedeliverySelection = { readonly deliveryId: string; readonly orgId?: string } | { readonly allDead: true; readonly orgId?: string };

export interface RedeliveryReport {
  readonly redelivered: ReadonlyArray<{ orgId: string; deliveryId: string; cycle: number }>;
  readonly refused: ReadonlyArray<{ orgId: string; deliveryId: string; reason: string }>;
}

/**
 * Starts a fresh attempt cycle for one delivery, or for every dead-lettered one (of an
 * organization): same delivery id and body, to the callback URL and headers configured now.
 */
export class RedeliverCallbackCommand extends Command<RedeliveryReport> {
  constructor(
    readonly selection: RedeliverySelection,
    readonly actor: string,
  ) {
    super();
  }
}
