import { Query } from '@nestjs/cqrs';
import type { ItemTypeDefinition } from '../../domain/catalog.model.js';

export type ItemTypeView = ItemTypeDefinition;

export class ListItemTypesQuery extends Query<ItemTypeView[]> {
  constructor(readonly orgId: string) {
    super();
  }
}
