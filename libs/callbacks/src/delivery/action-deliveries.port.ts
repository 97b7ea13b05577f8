import type { RecordedEvent } from '#warden/kernel';

/**
 * The callbacks module's ACTION_DELIVERIES port (docs/architecture.md, "Ports"): the module that
 * counts strikes (enforcement) hands it every published action once the action's strikes are
 * applied, with the user's count after them, so that a callback's path goes from its publisher
 * through enforcement to callbacks and never back (docs/architecture.md, "Main flows").
 */
export interface ActionDeliveries {
  /**
   * Records the delivery of a published action (an ActionCallbackRequested as recorded), its body
   * carrying `userStrikeCount` (null: no user, or none counted), and hands it to the dispatcher.
   * Its delivery id comes with the publication: a re-run finds it recorded and records nothing.
   */
  record(action: RecordedEvent, userStrikeCount: number | null): Promise<void>;
}

export const ACTION_DELIVERIES = Symbol('ActionDeliveries');

/** The reactor that recorded published actions' deliveries before the port did (enforcement's reactor succeeds it). */
export const DELIVERY_REACTOR = 'callbacks-delivery';
