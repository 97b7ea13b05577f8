import { Query } from '@nestjs/cqrs';
import type { WellnessSettings } from '../../domain/catalog.model.js';

/** What the console needs about the signed-in user's organization. */
export interface ConsoleSettings {
  readonly org: { readonly id: string; readonly name: string };
  readonly requireDecisionReason: boolean;
  readonly requirePolicyForDecisions: boolean;
  readonly wellness: WellnessSettings;
}

export class GetConsoleSettingsQuery extends Query<ConsoleSettings> {
  constructor(readonly orgId: string) {
    super();
  }
}
