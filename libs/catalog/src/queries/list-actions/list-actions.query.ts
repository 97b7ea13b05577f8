import { Query } from '@nestjs/cqrs';
import type { ActionParameter, Penalty } from '../../domain/catalog.model.js';

export type ActionType = 'CUSTOM_ACTION' | 'ENQUEUE_TO_MRT' | 'ENQUEUE_TO_CHILD_SAFETY';

/** An action with exactly the fields of docs/configuration-as-code.md, "The read endpoints"; callbacks are never returned. */
export interface ActionView {
  id: string;
  name: string;
  description: string | null;
  actionType: ActionType;
  applyUserStrikes: boolean;
  penalty: Penalty;
  itemTypeIds: string[];
  parameters: ActionParameter[];
}

export class ListActionsQuery extends Query<ActionView[]> {
  constructor(readonly orgId: string) {
    super();
  }
}
