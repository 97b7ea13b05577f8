import { type IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { CatalogReader } from '../catalog-reader.js';
import { type ItemTypeView, ListItemTypesQuery } from './list-item-types.query.js';

@QueryHandler(ListItemTypesQuery)
export class ListItemTypesHandler implements IQueryHandler<ListItemTypesQuery> {
  constructor(private readonly catalog: CatalogReader) {}

  async execute(query: ListItemTypesQuery): Promise<ItemTypeView[]> {
    return (await this.catalog.liveEntities(query.orgId, 'itemType')).map((t) => ({
      id: t.id,
      name: t.name,
      kind: t.kind,
      version: t.version,
      fields: t.fields.map((f) => ({
        name: f.name,
        type: f.type,
        required: f.required,
        array: f.array,
        itemTypeIds: f.itemTypeIds,
      })),
      roles: t.roles,
    }));
  }
}
